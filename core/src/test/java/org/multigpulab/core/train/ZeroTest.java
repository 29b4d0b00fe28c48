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
import org.junit.jupiter.params.provider.ValueSource;
import org.multigpulab.core.Synthetic;
import org.multigpulab.core.data.BatchIterator;
import org.multigpulab.core.data.FashionMnist;
import org.multigpulab.core.dist.ThreadRanks;
import org.multigpulab.core.model.HostTensor;
import org.multigpulab.core.model.LeNet;
import org.multigpulab.core.model.Mlp;
import org.multigpulab.core.model.Model;
import org.multigpulab.core.model.RunningStatsMlp;
import org.multigpulab.core.model.UpdateDistance;
import org.multigpulab.core.optim.Adam;
import org.multigpulab.core.optim.OptimizerState;
import org.multigpulab.core.parallel.ZeroStage;
import org.multigpulab.device.Device;

/**
 * ZeRO's stages ({@link TrainConfig#withZero}): each makes the update of plain data parallelism, on 1 to 4 devices
 * and across 2 processes (threads here, as ranks); each device holds the model state the ZeRO paper counts, as its
 * device measures it; a checkpoint holds the whole state and resumes on another stage and device count.
 */
class ZeroTest {

    /** 4 steps of 48 images, the last short (40): every chunk and piece boundary meets a parameter's somewhere. */
    private static final FashionMnist.Splits DATA = Synthetic.splits(3 * 48 + 40, 16);

    /** 3 steps, the last of one image: across 2 processes the second gets no rows in it. */
    private static final FashionMnist.Splits LAST_ROW_ALONE = Synthetic.splits(2 * 48 + 1, 16);

    private static TrainConfig config(ZeroStage stage) {
        return new TrainConfig(1, 48, 1e-3f, 5, true, true)
                .withOptimizer(Adam.adamW())
                .withZero(stage);
    }

    private static List<HostTensor> train(Model model, int gpus, TrainConfig config, List<HostTensor> init) {
        return train(model, gpus, config, init, DATA);
    }

    private static List<HostTensor> train(
            Model model, int gpus, TrainConfig config, List<HostTensor> init, FashionMnist.Splits data) {
        try (DataParallelTrainer t = new DataParallelTrainer(Synthetic.sim(gpus), model, init, config)) {
            t.train(data, new TrainingListener() {});
            List<HostTensor> all = new ArrayList<>(t.state());
            all.addAll(t.optimizerState());
            return all;
        }
    }

    static Stream<Arguments> stagesAndDevices() {
        List<Arguments> cases = new ArrayList<>();
        for (ZeroStage stage : List.of(ZeroStage.OPTIMIZER, ZeroStage.GRADIENTS, ZeroStage.PARAMETERS)) {
            for (int gpus = 1; gpus <= 4; gpus++) {
                cases.add(Arguments.of(stage, gpus));
            }
        }
        return cases.stream();
    }

    /**
     * LeNet, AdamW, 4 steps, buckets and units of at most 20 KB (so that W2 and W3 are units of their own and the
     * rest share): parameters, and the optimizer's state gathered from the chunks, bit for bit stage 0's on as many
     * devices, whose notebook's allreduce adds the devices' gradients in the order each stage's reduce does.
     */
    @ParameterizedTest(name = "stage {0} on {1} devices")
    @MethodSource("stagesAndDevices")
    void everyStageMakesTheUpdateOfPlainDataParallelism(ZeroStage stage, int gpus) {
        LeNet lenet = new LeNet();
        List<HostTensor> init = lenet.initialState(11);
        List<HostTensor> plain = train(lenet, gpus, config(ZeroStage.NONE), init);
        List<HostTensor> sharded = train(lenet, gpus, config(stage).withBucketBytes(20_000), init);
        assertEquals(names(plain), names(sharded));
        for (int i = 0; i < plain.size(); i++) {
            assertArrayEquals(
                    plain.get(i).values(),
                    sharded.get(i).values(),
                    stage + ", " + plain.get(i).name());
        }
        assertTrue(UpdateDistance.of(init, init, withoutStep(plain).subList(0, init.size()))
                        .worst()
                        .relative()
                > 0);
    }

    /**
     * Stage 3 with 2 micro-batches a step (the gradients stay whole in their buckets until the last micro-batch, as
     * FSDP's {@code no_sync} keeps them): bit for bit stage 0 accumulating alike, on 3 devices.
     */
    @Test
    void accumulatingStageThreeIsStageZeroAccumulating() {
        LeNet lenet = new LeNet();
        List<HostTensor> init = lenet.initialState(12);
        TrainConfig twice = config(ZeroStage.NONE).withBatchSize(24).withAccumulate(2);
        List<HostTensor> plain = train(lenet, 3, twice, init);
        List<HostTensor> sharded =
                train(lenet, 3, twice.withZero(ZeroStage.PARAMETERS).withBucketBytes(20_000), init);
        for (int i = 0; i < plain.size(); i++) {
            assertArrayEquals(
                    plain.get(i).values(), sharded.get(i).values(), plain.get(i).name());
        }
    }

    /**
     * {@code init}, then zeros for the optimizer's state that {@code trained} (without its step count) ends with:
     * where training started.
     */
    private static List<HostTensor> start(List<HostTensor> init, List<HostTensor> trained) {
        List<HostTensor> start = new ArrayList<>(init);
        for (HostTensor t : trained.subList(init.size(), trained.size())) {
            start.add(new HostTensor(t.name(), t.shape(), new float[t.size()], false));
        }
        return start;
    }

    private static List<String> names(List<HostTensor> tensors) {
        return tensors.stream().map(HostTensor::name).toList();
    }

    private static List<HostTensor> withoutStep(List<HostTensor> all) {
        return all.subList(0, all.size() - 1);
    }

    /**
     * Two processes of 2 devices each (threads as ranks), a model with buffers: each stage's parameters and
     * optimizer state within 1e-5 of stage 0's on the same 2 × 2 devices, and rank 1's the same as rank 0's (the
     * buffers differ: each rank's last forward pass moved its own).
     */
    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3})
    void everyStageMakesTheSameUpdateAcrossTwoProcesses(int stageNumber) {
        ZeroStage stage = ZeroStage.of(stageNumber);
        RunningStatsMlp model = new RunningStatsMlp();
        List<HostTensor> init = model.initialState(13);
        List<List<HostTensor>> plain = acrossTwo(model, config(ZeroStage.NONE), init);
        List<List<HostTensor>> sharded = acrossTwo(model, config(stage), init);
        for (int rank = 0; rank < 2; rank++) {
            List<HostTensor> trained = trainedOnly(model, plain.get(rank));
            UpdateDistance d = UpdateDistance.of(
                    start(init.subList(0, 4), trained), trainedOnly(model, sharded.get(rank)), trained);
            assertTrue(d.worst().relative() < 1e-5, stage + ", rank " + rank + " vs stage 0: " + d);
        }
        for (int i = 0; i < sharded.getFirst().size(); i++) {
            if (i >= 4 && i < 7) {
                continue; // the buffers
            }
            assertArrayEquals(
                    sharded.get(0).get(i).values(),
                    sharded.get(1).get(i).values(),
                    "rank 1's " + sharded.get(0).get(i).name());
        }
    }

    /** The parameters and the optimizer's state, without the buffers and the step count. */
    private static List<HostTensor> trainedOnly(Model model, List<HostTensor> all) {
        int params = model.parameters().size(), buffers = model.buffers().size();
        List<HostTensor> out = new ArrayList<>(all.subList(0, params));
        out.addAll(all.subList(params + buffers, all.size() - 1));
        return out;
    }

    private static List<List<HostTensor>> acrossTwo(Model model, TrainConfig config, List<HostTensor> init) {
        return ThreadRanks.run(2, group -> train(model, 2, config.withProcessGroup(group), init, DATA));
    }

    /**
     * Stage 3 across 2 processes when the last step leaves the second without rows: its collectives still pair up
     * with the first's (the units cross when a pass starts, the buckets sum in their order), and both end as stage 0
     * does, bit for bit between them.
     */
    @Test
    void aProcessWithoutRowsTakesPartInTheGathers() {
        Mlp mlp = new Mlp(64, 64);
        List<HostTensor> init = mlp.initialState(4);
        TrainConfig small = config(ZeroStage.PARAMETERS).withBucketBytes(10_000);
        List<List<HostTensor>> sharded =
                ThreadRanks.run(2, group -> train(mlp, 2, small.withProcessGroup(group), init, LAST_ROW_ALONE));
        List<List<HostTensor>> plain = ThreadRanks.run(
                2, group -> train(mlp, 2, config(ZeroStage.NONE).withProcessGroup(group), init, LAST_ROW_ALONE));
        for (int i = 0; i < plain.getFirst().size(); i++) {
            assertArrayEquals(
                    sharded.get(0).get(i).values(), sharded.get(1).get(i).values());
        }
        UpdateDistance d = UpdateDistance.of(
                init, sharded.get(0).subList(0, init.size()), plain.get(0).subList(0, init.size()));
        assertTrue(d.worst().relative() < 1e-5, "stage 3 vs stage 0 across 2 processes: " + d);
    }

    /**
     * What each device holds between steps, with AdamW's two moments and Ψ parameters over N devices, summed over the
     * devices (so that a chunk's rounding cancels): N·16Ψ, N·8Ψ + 8Ψ, N·4Ψ + 12Ψ and 16Ψ bytes for stages 0 to 3,
     * each device within a chunk's 16 bytes of 16Ψ, 8Ψ + 8Ψ/N, 4Ψ + 12Ψ/N and 16Ψ/N; and what the devices counted
     * as allocated once the trainer stood is exactly that, with the buffers.
     */
    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 4})
    void eachDeviceHoldsTheModelStateZeroCounts(int gpus) {
        Mlp mlp = new Mlp();
        long psi = mlp.parameters().stream().mapToLong(p -> p.size()).sum();
        long[] total = {16 * psi * gpus, 8 * psi * gpus + 8 * psi, 4 * psi * gpus + 12 * psi, 16 * psi};
        double[] each = {16 * psi, 8 * psi + 8.0 * psi / gpus, 4 * psi + 12.0 * psi / gpus, 16.0 * psi / gpus};
        for (ZeroStage stage : ZeroStage.values()) {
            List<Device> devices = Synthetic.sim(gpus);
            try (DataParallelTrainer t = new DataParallelTrainer(devices, mlp, mlp.initialState(1), config(stage))) {
                List<DeviceMemory> memory = t.memory();
                long sum = 0;
                for (int d = 0; d < gpus; d++) {
                    DeviceMemory m = memory.get(d);
                    sum += m.modelState();
                    assertEquals(each[stage.number()], m.modelState(), 16, stage + ", device " + d);
                    assertEquals(devices.get(d).stats().allocatedBytes(), m.betweenSteps(), stage + ", device " + d);
                    assertEquals(0, m.activations(), "no step taken yet");
                }
                assertEquals(total[stage.number()], sum, stage + " on " + gpus + " devices");
            }
        }
    }

    /**
     * A checkpoint of a stage-2 run on 2 devices (the whole state, gathered) resumed by stage 3 on 3 devices and by
     * stage 0 on 1: both end within 1e-5 of the run that went on unsharded.
     */
    @Test
    void aShardedRunsCheckpointResumesOnAnotherStageAndDeviceCount() {
        LeNet lenet = new LeNet();
        TrainConfig two = config(ZeroStage.GRADIENTS).withEpochs(2);
        List<HostTensor> saved;
        TrainingState after;
        try (DataParallelTrainer t = new DataParallelTrainer(Synthetic.sim(2), lenet, lenet.initialState(3), two)) {
            TrainResult first = t.train(DATA, new TrainingListener() {}, TrainingState.START, Checkpoints.NONE);
            assertEquals(2, first.epochs().size());
            saved = new ArrayList<>(t.state());
            saved.addAll(t.optimizerState());
            after = TrainingState.after(first.epochs().subList(0, 2));
        }
        TrainConfig four = two.withEpochs(3);
        List<HostTensor> straight = resume(lenet, 1, four.withZero(ZeroStage.NONE), saved, after);
        for (var stageAndGpus : List.of(List.of(3, 3), List.of(0, 1))) {
            List<HostTensor> resumed =
                    resume(lenet, stageAndGpus.get(1), four.withZero(ZeroStage.of(stageAndGpus.get(0))), saved, after);
            UpdateDistance d = UpdateDistance.of(saved.subList(0, 8), straight.subList(0, 8), resumed.subList(0, 8));
            assertTrue(d.worst().relative() < 1e-5, "resumed on stage " + stageAndGpus + ": " + d);
        }
    }

    private static List<HostTensor> resume(
            Model model, int gpus, TrainConfig config, List<HostTensor> saved, TrainingState from) {
        List<HostTensor> state =
                saved.stream().filter(t -> !OptimizerState.holds(t)).toList();
        List<HostTensor> optimizer =
                saved.stream().filter(OptimizerState::holds).toList();
        try (DataParallelTrainer t = new DataParallelTrainer(Synthetic.sim(gpus), model, state, config)) {
            t.resumeOptimizer(optimizer);
            t.train(DATA, new TrainingListener() {}, from, Checkpoints.NONE);
            return t.state();
        }
    }

    /**
     * Stage 3 gathers the layers a pass reaches, the next one prefetched, and frees those behind; stage 2 frees each
     * bucket of gradients once reduce-scattered. An MLP of four hidden layers of 256 (each weight 256 KB) on 2
     * devices, units and buckets of 100 KB: the peak of a step, what the device counted, stays below the model's
     * parameters held whole (stage 3 with one unit) by more than a layer's worth, and stage 2's below its peak with
     * one bucket.
     */
    @Test
    void passesHoldALayerOrTwoNotTheWholeModel() {
        Mlp deep = new Mlp(256, 256, 256, 256);
        List<HostTensor> init = deep.initialState(2);
        long layer = 256L * 256 * Float.BYTES;
        for (ZeroStage stage : List.of(ZeroStage.GRADIENTS, ZeroStage.PARAMETERS)) {
            long byLayer = stepPeak(deep, init, config(stage).withBucketBytes(100_000));
            long whole = stepPeak(deep, init, config(stage).withBucketBytes(Long.MAX_VALUE));
            assertTrue(byLayer + layer < whole, stage + ": peak " + byLayer + " by layers, " + whole + " whole");
        }
    }

    /** Device 0's peak over an epoch's steps and the test set's evaluation, counted from when the trainer stood. */
    private static long stepPeak(Model model, List<HostTensor> init, TrainConfig config) {
        List<Device> devices = Synthetic.sim(2);
        try (DataParallelTrainer t = new DataParallelTrainer(devices, model, init, config)) {
            devices.forEach(Device::resetPeakMemory);
            BatchIterator it = new BatchIterator(DATA.train(), config.batchSize());
            while (it.hasNext()) {
                t.trainBatch(it.next(), config.lr(), 1);
            }
            t.evaluateAccuracy(DATA.test());
            return devices.getFirst().stats().peakAllocatedBytes();
        }
    }

    @Test
    void aFifthStageIsRefused() {
        assertEquals(
                "ZeRO has stages 0 (nothing sharded) to 3 (parameters sharded), not 4",
                assertThrows(IllegalArgumentException.class, () -> ZeroStage.of(4))
                        .getMessage());
    }
}
