package org.multigpulab.core.train;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.multigpulab.core.Synthetic;
import org.multigpulab.core.data.FashionMnist;
import org.multigpulab.core.model.HostTensor;
import org.multigpulab.core.model.LeNet;
import org.multigpulab.core.optim.Adam;
import org.multigpulab.core.optim.OptimizerState;
import org.multigpulab.core.optim.Sgd;

/**
 * A run stopped at any checkpoint and resumed from it, in a fresh trainer on fresh devices, ends with the
 * parameters and the epoch figures of the run that never stopped, bit for bit: with the notebook's SGD, and with an
 * optimizer that keeps state (SGD's momentum, Adam's moments and step), which the checkpoint holds after the model's.
 */
class ResumeTest {

    /** 200 images in batches of 50: 4 steps an epoch, 3 epochs, a checkpoint every 3 steps and after each epoch. */
    private static final FashionMnist.Splits DATA = Synthetic.splits(200, 50);

    private static final TrainConfig CONFIG = new TrainConfig(3, 50, 0.5f, 7, true, false).withBucketBytes(100_000);

    /** Where the checkpoints fall, epoch/batch: steps 3, 6, 9 inside epochs 1, 2, 3, and the end of each epoch. */
    private static final List<String> POSITIONS = List.of("1/3", "2/0", "2/2", "3/0", "3/1", "4/0");

    static Stream<Arguments> configs() {
        return Stream.of(
                Arguments.of(CONFIG, POSITIONS),
                Arguments.of(CONFIG.withLr(0.1f).withOptimizer(new Sgd(0.9f, 0, true, 1e-3f)), POSITIONS),
                Arguments.of(CONFIG.withLr(1e-3f).withOptimizer(Adam.adamW()), POSITIONS),
                // the same steps of 50 images, each of 2 micro-batches of 25: the steps count, not the batches
                Arguments.of(
                        CONFIG.withLr(1e-3f)
                                .withOptimizer(Adam.adamW())
                                .withBatchSize(25)
                                .withAccumulate(2),
                        List.of("1/6", "2/0", "2/4", "3/0", "3/2", "4/0")));
    }

    private record Saved(TrainingState state, List<HostTensor> params) {}

    private record Run(TrainResult result, List<HostTensor> params) {}

    private static Run train(TrainConfig config, TrainingState from, List<HostTensor> saved, Checkpoints checkpoints) {
        List<HostTensor> model =
                saved.stream().filter(t -> !OptimizerState.holds(t)).toList();
        List<HostTensor> optimizer =
                saved.stream().filter(OptimizerState::holds).toList();
        try (DataParallelTrainer trainer = new DataParallelTrainer(Synthetic.sim(2), new LeNet(), model, config)) {
            if (!optimizer.isEmpty()) {
                trainer.resumeOptimizer(optimizer);
            }
            TrainResult result = trainer.train(DATA, new TrainingListener() {}, from, checkpoints);
            return new Run(result, trainer.parameters());
        }
    }

    private static Checkpoints everyThirdStep(List<Saved> saved) {
        return new Checkpoints() {
            @Override
            public int everySteps() {
                return 3;
            }

            @Override
            public void save(TrainingState state, List<HostTensor> params) {
                saved.add(new Saved(state, params));
            }
        };
    }

    @ParameterizedTest
    @MethodSource("configs")
    void everyCheckpointResumesToTheUninterruptedRunBitForBit(TrainConfig config, List<String> positions) {
        List<Saved> saved = new ArrayList<>();
        Run whole = train(config, TrainingState.START, new LeNet().initialState(3), everyThirdStep(saved));
        int stateTensors = config.optimizer().stateTensors();
        assertEquals(
                8 + (stateTensors == 0 ? 0 : 8 * stateTensors + 1),
                saved.getFirst().params().size(),
                "the model's 8 tensors, then the optimizer's per parameter and its step");
        assertEquals(
                positions,
                saved.stream()
                        .map(s -> s.state().epoch() + "/" + s.state().batchesDone())
                        .toList());
        for (Saved s : saved) {
            // checkpointed as the whole run was: reading the parameters back costs simulated time
            Run resumed = train(config, s.state(), s.params(), everyThirdStep(new ArrayList<>()));
            String at = "resumed at epoch " + s.state().epoch() + ", batch "
                    + s.state().batchesDone();
            for (int i = 0; i < whole.params().size(); i++) {
                assertArrayEquals(
                        whole.params().get(i).values(),
                        resumed.params().get(i).values(),
                        at + ": " + whole.params().get(i).name());
            }
            for (int e = 0; e < 3; e++) {
                TrainingListener.EpochDone a = whole.result().epochs().get(e),
                        b = resumed.result().epochs().get(e);
                assertEquals(a.trainLoss(), b.trainLoss(), at + ", epoch " + (e + 1));
                assertEquals(a.trainAcc(), b.trainAcc(), at + ", epoch " + (e + 1));
                assertEquals(a.testAcc(), b.testAcc(), at + ", epoch " + (e + 1));
                // simulated seconds continue from the checkpoint's, added in another order
                assertEquals(a.simSec(), b.simSec(), 1e-9 * a.simSec(), at + ", epoch " + (e + 1));
            }
        }
    }

    @Test
    void aStateThatNoRunCanBeInIsRejected() {
        assertThrows(IllegalArgumentException.class, () -> new TrainingState(2, 0, 0, 0, 0, 0, List.of()));
        assertThrows(IllegalArgumentException.class, () -> new TrainingState(0, 0, 0, 0, 0, 0, List.of()));
        TrainingState pastTheEnd = TrainingState.after(List.of(
                new TrainingListener.EpochDone(1, 1, 2, 0.1, 0.1, 1, 1),
                new TrainingListener.EpochDone(2, 1, 2, 0.1, 0.1, 1, 1),
                new TrainingListener.EpochDone(3, 1, 2, 0.1, 0.1, 1, 1),
                new TrainingListener.EpochDone(4, 1, 2, 0.1, 0.1, 1, 1)));
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class,
                () -> train(CONFIG, pastTheEnd, new LeNet().initialState(3), Checkpoints.NONE));
        assertTrue(e.getMessage().contains("finished 4 epochs, more than the 3"), e.getMessage());
    }
}
