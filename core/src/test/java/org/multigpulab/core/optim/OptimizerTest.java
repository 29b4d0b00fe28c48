package org.multigpulab.core.optim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.multigpulab.core.Synthetic;
import org.multigpulab.core.data.BatchIterator;
import org.multigpulab.core.data.FashionMnist;
import org.multigpulab.core.model.HostTensor;
import org.multigpulab.core.model.LeNet;
import org.multigpulab.core.model.UpdateDistance;
import org.multigpulab.core.parallel.Replica;
import org.multigpulab.core.train.DataParallelTrainer;
import org.multigpulab.core.train.TrainConfig;
import org.multigpulab.core.train.TrainingListener;

/**
 * The optimizers in training: Adam's first step moves every parameter by about {@code lr} against its gradient's
 * sign, whatever the gradient's size; each optimizer takes the same steps on 3 devices as on 1 (the gradients are
 * the same sums, in another order); and hyperparameters torch.optim refuses are refused with what to do. Each rule
 * against its float64 reference: the conformance kit's {@code sgd_step} and {@code adam_step}.
 */
class OptimizerTest {

    private static final float LR = 1e-3f;

    @Test
    void adamsFirstStepMovesEveryParameterByAboutLrAgainstItsGradient() {
        List<HostTensor> init = new LeNet().initialState(4);
        TrainConfig config = new TrainConfig(1, 64, LR, 1, false, false).withOptimizer(Adam.adam());
        FashionMnist.Splits data = Synthetic.splits(64, 16);
        try (DataParallelTrainer t = new DataParallelTrainer(Synthetic.sim(1), new LeNet(), init, config)) {
            t.trainBatch(new BatchIterator(data.train(), 64).next(), LR, 1);
            Replica replica = t.replicas().getFirst();
            List<HostTensor> after = t.parameters();
            int checked = 0;
            for (int p = 0; p < init.size(); p++) {
                float[] before = init.get(p).values(), now = after.get(p).values();
                float[] grad = replica.device().download(replica.params().get(p).grad());
                for (int i = 0; i < before.length; i++) {
                    float moved = now[i] - before[i], g = grad[i] / 64;
                    assertTrue(Math.abs(moved) <= LR * 1.001, init.get(p).name() + " moved " + moved);
                    if (Math.abs(g) > 1e-5) { // m̂/√v̂ = g/(|g| + eps): within 1e-3 of ±1 from here
                        assertEquals(
                                -LR * Math.signum(g),
                                moved,
                                2e-3 * LR,
                                init.get(p).name() + " at " + i);
                        checked++;
                    }
                }
            }
            assertTrue(checked > 1000, "only " + checked + " gradients above 1e-5");
        }
    }

    /**
     * Bound: every tensor's update within 1e-4 of one device's (measured: SGD with Nesterov momentum 2.1e-6, in W4;
     * Adam 4.4e-7 and AdamW 3.7e-7, in W2).
     */
    @ParameterizedTest
    @ValueSource(strings = {"sgd-nesterov", "adam", "adamw"})
    void threeDevicesTakeTheStepsOfOne(String which) {
        Optimizer optimizer = switch (which) {
            case "sgd-nesterov" -> new Sgd(0.9f, 0, true, 1e-3f);
            case "adam" -> new Adam(0.9f, 0.999f, 1e-8f, 1e-4f, false);
            default -> Adam.adamW();
        };
        float lr = optimizer instanceof Sgd ? 0.1f : LR;
        FashionMnist.Splits data = Synthetic.splits(192, 16);
        TrainConfig config = new TrainConfig(1, 64, lr, 1, false, true).withOptimizer(optimizer);
        List<HostTensor> init = new LeNet().initialState(5);
        List<HostTensor> one = train(1, data, config, init), three = train(3, data, config, init);
        UpdateDistance d = UpdateDistance.of(init, three, one);
        assertTrue(d.worst().relative() < 1e-4, which + ", 3 devices vs 1 over 3 steps: " + d);
    }

    private static List<HostTensor> train(
            int gpus, FashionMnist.Splits data, TrainConfig config, List<HostTensor> init) {
        try (DataParallelTrainer t = new DataParallelTrainer(Synthetic.sim(gpus), new LeNet(), init, config)) {
            t.train(data, new TrainingListener() {});
            return t.parameters();
        }
    }

    @Test
    void hyperparametersTorchRefusesAreRefusedWithWhatToDo() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new Sgd(0, 0, true, 0));
        assertTrue(
                e.getMessage().startsWith("Nesterov momentum needs a momentum above 0 and dampening 0"),
                e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> new Adam(0.9f, 1f, 1e-8f, 0, false));
        assertTrue(e.getMessage().contains("betas"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> Optimizer.checkedName("rmsprop"));
        assertEquals("unknown optimizer 'rmsprop'; choose sgd, adam or adamw", e.getMessage());
    }
}
