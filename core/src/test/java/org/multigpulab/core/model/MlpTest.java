package org.multigpulab.core.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.multigpulab.core.Synthetic;
import org.multigpulab.core.autograd.Ops;
import org.multigpulab.core.autograd.Tape;
import org.multigpulab.core.autograd.Tensor;
import org.multigpulab.core.data.BatchIterator;
import org.multigpulab.core.data.FashionMnist;
import org.multigpulab.core.data.HostBatch;
import org.multigpulab.core.parallel.Replica;
import org.multigpulab.core.train.DataParallelTrainer;
import org.multigpulab.core.train.TrainConfig;
import org.multigpulab.core.train.TrainResult;
import org.multigpulab.core.train.TrainingListener;
import org.multigpulab.device.BiasShape;
import org.multigpulab.device.Device;
import org.multigpulab.device.conformance.Reference;

/** d2l's MLP as a second {@link Model}: its parameters, its gradient, and that the same trainer teaches it. */
class MlpTest {

    @Test
    void hasD2lsShapesAndInitialisation() {
        Mlp mlp = new Mlp();
        assertEquals(203_530, mlp.parameterCount());
        List<HostTensor> params = mlp.initParams(0);
        assertEquals(
                List.of("W1", "b1", "W2", "b2"),
                params.stream().map(HostTensor::name).toList());
        assertEquals("[784, 256]", params.get(0).shapeText());
        double sumSq = 0;
        for (float v : params.get(0).values()) {
            sumSq += v * v;
        }
        double std = Math.sqrt(sumSq / params.get(0).size());
        assertTrue(Math.abs(std - 0.01) < 0.0005, "W1 ~ N(0, 0.01²), got std " + std);
        for (float v : params.get(1).values()) {
            assertEquals(0f, v, "biases start at zero");
        }
        assertEquals(mlp.getClass(), Model.named("mlp").getClass());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Model.named("resnet"));
        assertTrue(e.getMessage().contains("choose lenet") && e.getMessage().contains("mlp"), e.getMessage());
    }

    /**
     * The tape's gradient of every parameter along a random direction in it, against a central difference of the
     * MLP's summed loss in float64 ({@link Reference}'s kernels). Agreement to 1e-3 of the terms' magnitude: a
     * ReLU kink between float32 and float64 moves a unit's share, a wiring fault is O(1).
     */
    @Test
    void gradientOfEveryParameterMatchesFiniteDifference() {
        Mlp mlp = new Mlp();
        Device device = Synthetic.sim(1).getFirst();
        long seed = System.nanoTime();
        Random random = new Random(seed);
        List<HostTensor> init = mlp.initParams(3).stream()
                .map(p -> {
                    float[] v = p.values().clone();
                    for (int i = 0; i < v.length; i++) {
                        v[i] = (float) random.nextGaussian() * 0.05f;
                    }
                    return new HostTensor(p.name(), p.shape(), v);
                })
                .toList();
        HostBatch batch = new BatchIterator(Synthetic.images("t", BATCH, 5), BATCH).next();
        try (Replica replica = Replica.getParams(init, device)) {
            Tensor x = Tensor.of(device.upload(batch.x()), false, BATCH, 1, 28, 28);
            Tensor y = Tensor.of(device.upload(batch.y()), false, BATCH);
            try (Tape tape = Tape.training(replica.workspace())) {
                tape.backward(Ops.crossEntropySum(tape, mlp.forward(tape, x, replica.params()), y));
            }
            List<double[]> at =
                    init.stream().map(p -> Reference.wide(p.values())).toList();
            double[] images = Reference.wide(batch.x()), labels = Reference.wide(batch.y());
            double h = 1e-6;
            for (int p = 0; p < init.size(); p++) {
                float[] g = device.download(replica.params().get(p).grad());
                double[] v = new double[g.length];
                double analytic = 0, terms = 0;
                for (int i = 0; i < v.length; i++) {
                    v[i] = random.nextGaussian();
                    analytic += g[i] * v[i];
                    terms += Math.abs(g[i] * v[i]);
                }
                double numeric = (referenceLoss(shifted(at, p, v, h), images, labels)
                                - referenceLoss(shifted(at, p, v, -h), images, labels))
                        / (2 * h);
                assertEquals(
                        numeric,
                        analytic,
                        1e-3 * terms,
                        "the gradient of " + init.get(p).name() + " along a random direction in it alone; random seed "
                                + seed);
            }
        } finally {
            device.close();
        }
    }

    private static final int BATCH = 4;

    private static List<double[]> shifted(List<double[]> params, int which, double[] v, double h) {
        List<double[]> out = new ArrayList<>(params);
        double[] p = params.get(which).clone();
        for (int i = 0; i < p.length; i++) {
            p[i] += h * v[i];
        }
        out.set(which, p);
        return out;
    }

    /** The MLP's summed loss in float64, as {@link Mlp#forward} computes it. */
    private static double referenceLoss(List<double[]> w, double[] x, double[] labels) {
        double[] h = Reference.reluForward(Reference.biasAdd(
                Reference.gemm(false, false, BATCH, 256, 784, 1, x, w.get(0), 0, null),
                w.get(1),
                new BiasShape(BATCH, 256, 1))); // [N, 256]
        double[] logits = Reference.biasAdd(
                Reference.gemm(false, false, BATCH, 10, 256, 1, h, w.get(2), 0, null),
                w.get(3),
                new BiasShape(BATCH, 10, 1)); // [N, 10]
        return java.util.Arrays.stream(Reference.softmaxCrossEntropyForward(logits, labels, BATCH, 10))
                .sum();
    }

    /**
     * The trainer, unchanged, teaches the MLP on two simulated GPUs: on images whose class is a band of bright
     * rows, two epochs take it from chance (0.1) to well above it (measured: 1.00 after the first).
     */
    @Test
    void learnsSyntheticImagesThroughTheSameTrainerOnTwoGpus() {
        TrainResult result = train(Synthetic.splits(1024, 256), 2, 64);
        assertTrue(result.finalTestAcc() > 0.8, "well above chance (0.1): " + result.epochs());
        assertTrue(
                result.epochs().getLast().trainLoss()
                        < result.epochs().getFirst().trainLoss(),
                result.epochs().toString());
    }

    /**
     * A fixed slice of the real set, the first 6,400 training and 1,000 test images, two epochs of batches of 64
     * on two simulated GPUs: well above chance (measured: 0.79). Where the real set is missing, the synthetic
     * test above still trains the MLP.
     */
    @Test
    void learnsFashionMnistThroughTheSameTrainerOnTwoGpus() {
        FashionMnist.Splits all = FashionMnist.load(Synthetic.realDataDir(), true);
        TrainResult result = train(
                new FashionMnist.Splits(all.train().first(6400), all.test().first(1000)), 2, 64);
        assertTrue(result.finalTestAcc() > 0.6, "well above chance (0.1): " + result.epochs());
    }

    private static TrainResult train(FashionMnist.Splits data, int epochs, int batchSize) {
        Mlp mlp = new Mlp();
        List<Device> devices = Synthetic.sim(2);
        try (DataParallelTrainer trainer = new DataParallelTrainer(
                devices, mlp, mlp.initParams(1), new TrainConfig(epochs, batchSize, 0.2f, 1, true, true))) {
            return trainer.train(data, new TrainingListener() {});
        } finally {
            devices.forEach(Device::close);
        }
    }

    @Test
    void theTrainerRefusesParametersOfAnotherModel() {
        List<Device> devices = Synthetic.sim(1);
        try {
            IllegalArgumentException e = assertThrows(
                    IllegalArgumentException.class,
                    () -> new DataParallelTrainer(
                            devices, new Mlp(), new LeNet().initParams(0), TrainConfig.notebook()));
            assertTrue(
                    e.getMessage().startsWith("these parameters are not MLP's: it has [W1 [784, 256]"), e.getMessage());
        } finally {
            devices.forEach(Device::close);
        }
    }
}
