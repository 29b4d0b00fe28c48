package org.multigpulab.core.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.multigpulab.core.GradientCheck;
import org.multigpulab.core.Synthetic;
import org.multigpulab.core.data.FashionMnist;
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
        List<HostTensor> params = mlp.initialState(0);
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
        GradientCheck.everyTensor(new Mlp(), 0.05f, 1e-3, MlpTest::referenceLoss);
    }

    /** The MLP's summed loss in float64, as {@link Mlp#forward} computes it. */
    private static double referenceLoss(List<double[]> w, double[] x, double[] labels) {
        double[] h = Reference.reluForward(Reference.biasAdd(
                Reference.gemm(false, false, GradientCheck.BATCH, 256, 784, 1, x, w.get(0), 0, null),
                w.get(1),
                new BiasShape(GradientCheck.BATCH, 256, 1))); // [N, 256]
        double[] logits = Reference.biasAdd(
                Reference.gemm(false, false, GradientCheck.BATCH, 10, 256, 1, h, w.get(2), 0, null),
                w.get(3),
                new BiasShape(GradientCheck.BATCH, 10, 1)); // [N, 10]
        return Arrays.stream(Reference.softmaxCrossEntropyForward(logits, labels, GradientCheck.BATCH, 10))
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
                devices, mlp, mlp.initialState(1), new TrainConfig(epochs, batchSize, 0.2f, 1, true, true))) {
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
                            devices, new Mlp(), new LeNet().initialState(0), TrainConfig.notebook()));
            assertTrue(e.getMessage().startsWith("this state is not MLP's: it has [W1 [784, 256]"), e.getMessage());
        } finally {
            devices.forEach(Device::close);
        }
    }
}
