package org.multigpulab.core.train;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.multigpulab.core.Synthetic;
import org.multigpulab.core.data.FashionMnist;
import org.multigpulab.core.model.HostTensor;
import org.multigpulab.core.model.Mlp;
import org.multigpulab.core.model.Model;
import org.multigpulab.core.model.RunningStatsMlp;
import org.multigpulab.core.model.UpdateDistance;
import org.multigpulab.core.optim.Adam;
import org.multigpulab.device.Device;

/**
 * Gradient accumulation ({@link TrainConfig#withAccumulate}): K micro-batches of B images make the update of one
 * batch of K·B, for a model without batch statistics; the devices exchange gradients once per step, so K times fewer
 * bytes an epoch; a model's buffers are updated by every micro-batch.
 */
class AccumulationTest {

    private static final int B = 32, K = 4;
    private static final FashionMnist.Splits DATA = Synthetic.splits(3 * K * B + 2 * B + 5, 16);

    private record Run(List<HostTensor> params, long peerBytes, int steps) {}

    private static Run train(Model model, int gpus, int batch, int accumulate, List<HostTensor> init) {
        TrainConfig config = new TrainConfig(1, batch, 1e-3f, 3, true, true)
                .withOptimizer(Adam.adam())
                .withAccumulate(accumulate);
        List<Device> devices = Synthetic.sim(gpus);
        try (DataParallelTrainer t = new DataParallelTrainer(devices, model, init, config)) {
            int[] steps = {0};
            t.train(DATA, new TrainingListener() {
                @Override
                public void onBatch(BatchDone b) {
                    steps[0]++;
                }
            });
            long bytes =
                    devices.stream().mapToLong(d -> d.stats().bytesFromPeers()).sum();
            return new Run(t.state(), bytes, steps[0]);
        }
    }

    /**
     * The epoch's 3·K + 3 batches of B (the last one short) make 4 steps of K·B, the last taking the 3 batches left.
     * Bound: every tensor's update within 1e-5 of the large batch's (Adam's update is lr·m̂/√v̂: float sums in
     * another order move it by a few ulp).
     */
    @ParameterizedTest
    @ValueSource(ints = {1, 3})
    void kMicroBatchesMakeTheUpdateOfOneBatchKTimesLarger(int gpus) {
        Mlp mlp = new Mlp();
        List<HostTensor> init = mlp.initialState(7);
        Run accumulated = train(mlp, gpus, B, K, init), large = train(mlp, gpus, K * B, 1, init);
        assertEquals(4, accumulated.steps());
        assertEquals(4, large.steps());
        UpdateDistance d = UpdateDistance.of(init, accumulated.params(), large.params());
        assertTrue(d.worst().relative() < 1e-5, gpus + " devices, accumulated vs one large batch: " + d);
    }

    /** One exchange a step instead of one a batch: K times fewer bytes between the devices (the last step, 3). */
    @Test
    void devicesExchangeGradientsOncePerStep() {
        Mlp mlp = new Mlp();
        List<HostTensor> init = mlp.initialState(7);
        Run accumulated = train(mlp, 2, B, K, init), everyBatch = train(mlp, 2, B, 1, init);
        assertTrue(accumulated.peerBytes() > 0);
        assertEquals(everyBatch.peerBytes() * 4, accumulated.peerBytes() * (3 * K + 3), 0.0);
    }

    /**
     * A model's buffers see every micro-batch's forward pass, as in PyTorch: the test model's BatchNorm-like counter
     * counts 15 passes an epoch with accumulation, 4 with the large batches, and the parameters still agree.
     */
    @Test
    void buffersSeeEveryMicroBatch() {
        RunningStatsMlp bn = new RunningStatsMlp();
        List<HostTensor> init = bn.initialState(7);
        Run accumulated = train(bn, 2, B, K, init), large = train(bn, 2, K * B, 1, init);
        assertEquals(3 * K + 3, tracked(accumulated));
        assertEquals(4, tracked(large));
        int params = bn.parameters().size();
        UpdateDistance d = UpdateDistance.of(
                init.subList(0, params),
                accumulated.params().subList(0, params),
                large.params().subList(0, params));
        assertTrue(d.worst().relative() < 1e-5, "accumulated vs large: " + d);
    }

    private static int tracked(Run run) {
        return Math.round(run.params().getLast().values()[0]);
    }

    @Test
    void noMicroBatchesIsRefused() {
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class, () -> TrainConfig.notebook().withAccumulate(0));
        assertEquals("gradients must be accumulated over 1 micro-batch (every step) or more, not 0", e.getMessage());
    }
}
