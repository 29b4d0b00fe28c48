package org.multigpulab.core.train;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.multigpulab.core.Synthetic;
import org.multigpulab.core.data.BatchIterator;
import org.multigpulab.core.data.FashionMnist;
import org.multigpulab.core.data.HostBatch;
import org.multigpulab.core.model.HostTensor;
import org.multigpulab.core.model.LeNet;
import org.multigpulab.core.model.Model;
import org.multigpulab.core.model.RunningStatsMlp;
import org.multigpulab.core.parallel.Replica;
import org.multigpulab.device.Device;

/**
 * A model's buffers as DDP keeps them: not trained, device 0's broadcast to every replica before each training
 * forward pass (the replica checks compare them right after), device 0's saved, left alone by evaluation; a state
 * without them is refused.
 */
class BuffersTest {

    private static final Model MODEL = new RunningStatsMlp();
    private static final int TRAIN = 240, BATCH = 60;
    /** A learning rate under float32's resolution of the parameters: none of them moves. */
    private static final float TINY = 1e-30f;

    private static List<HostTensor> buffers(List<HostTensor> state) {
        return state.subList(MODEL.parameters().size(), state.size());
    }

    @Test
    void theModelsStateEndsWithItsBuffersTheCounterIntegral() {
        List<HostTensor> state = MODEL.initialState(0);
        assertEquals(
                List.of("W1", "b1", "W2", "b2", "bn.running_mean", "bn.running_var", "bn.num_batches_tracked"),
                state.stream().map(HostTensor::name).toList());
        assertTrue(state.getLast().integral() && !state.get(4).integral());
        assertArrayEquals(new float[256], state.get(4).values());
    }

    /**
     * Two devices: the counter counts the steps (device 0's forward passes, each after the broadcast of device 0's
     * count), and the running mean is the one device 0 alone keeps from its own shards (at an lr so small that no parameter
     * moves, so that both runs see the same ones). With the replica checks on, a broadcast that missed a replica would fail the step.
     */
    @Test
    void device0sBuffersAreBroadcastBeforeEachForwardPassAndSaved() {
        FashionMnist.Splits data = Synthetic.splits(TRAIN, 30);
        TrainConfig config = new TrainConfig(1, BATCH, TINY, 3, false, true);
        List<HostTensor> two, alone;
        try (DataParallelTrainer t = new DataParallelTrainer(Synthetic.sim(2), MODEL, MODEL.initialState(0), config)) {
            t.train(data, new TrainingListener() {});
            two = t.state();
            // Whatever device 1's buffers hold, the next step starts from device 0's
            Replica second = t.replicas().get(1);
            second.device()
                    .upload(new float[] {1000}, 0, second.buffers().get(2).data());
            t.trainBatch(new BatchIterator(data.train(), BATCH).next(), TINY, 2);
            float counted = second.downloadState().getLast().values()[0];
            assertEquals(
                    BatchIterator.batchesPerEpoch(TRAIN, BATCH) + 1, counted, "device 1's count after the broadcast");
            List<HostTensor> before = t.state();
            t.evaluateAccuracy(data.test());
            assertArrayEquals(before.get(4).values(), t.state().get(4).values(), "evaluation leaves the buffers alone");
        }
        int steps = BatchIterator.batchesPerEpoch(TRAIN, BATCH);
        assertEquals(steps, two.getLast().values()[0], "num_batches_tracked");

        // Device 0 alone on the first half of each batch (its shard of two): the same running mean
        TrainConfig half = new TrainConfig(1, BATCH / 2, TINY, 3, false, false);
        FashionMnist.Splits halves = Synthetic.splits(TRAIN, 30);
        try (DataParallelTrainer t = new DataParallelTrainer(Synthetic.sim(1), MODEL, MODEL.initialState(0), half)) {
            BatchIterator it = new BatchIterator(halves.train(), BATCH);
            for (int b = 0; it.hasNext(); b++) {
                HostBatch batch = it.next();
                t.trainBatch(new HostBatch(batch.x(), batch.y(), BATCH / 2, batch.shape(), b + 1), 0f, 1);
            }
            alone = t.state();
        }
        float[] mean = buffers(two).get(0).values(),
                expected = buffers(alone).get(0).values();
        assertTrue(Math.abs(mean[0]) + Math.abs(mean[1]) + Math.abs(mean[2]) > 0, "the running mean moved");
        for (int i = 0; i < mean.length; i++) {
            assertEquals(expected[i], mean[i], 1e-6 * (1 + Math.abs(expected[i])), "bn.running_mean at " + i);
        }
        assertEquals(steps, alone.getLast().values()[0]);
    }

    @Test
    void aStateWithoutTheBuffersIsRefusedNamingThem() {
        List<HostTensor> parametersOnly = MODEL.initialState(0).subList(0, 4);
        List<Device> devices = Synthetic.sim(1);
        try {
            IllegalArgumentException e = assertThrows(
                    IllegalArgumentException.class,
                    () -> new DataParallelTrainer(devices, MODEL, parametersOnly, TrainConfig.notebook()));
            assertTrue(e.getMessage().contains("bn.running_mean [256]"), e.getMessage());
            e = assertThrows(
                    IllegalArgumentException.class,
                    () -> new DataParallelTrainer(devices, MODEL, new LeNet().initialState(0), TrainConfig.notebook()));
            assertTrue(e.getMessage().contains("MLP-BN"), e.getMessage());
        } finally {
            devices.forEach(Device::close);
        }
    }
}
