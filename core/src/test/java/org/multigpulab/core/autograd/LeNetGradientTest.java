package org.multigpulab.core.autograd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.multigpulab.core.GradientCheck;
import org.multigpulab.core.Synthetic;
import org.multigpulab.core.model.HostTensor;
import org.multigpulab.core.model.LeNet;
import org.multigpulab.core.parallel.Replica;
import org.multigpulab.device.BiasShape;
import org.multigpulab.device.ConvShape;
import org.multigpulab.device.PoolShape;
import org.multigpulab.device.conformance.Reference;

/** The tape's wiring: LeNet's gradient against a finite difference of its own loss. */
class LeNetGradientTest {

    @Test
    void modelHasTheNotebooksShapesAndParameterCount() {
        assertEquals(129_068, new LeNet().parameterCount());
        List<HostTensor> params = new LeNet().initialState(0);
        assertEquals(
                List.of("W1", "b1", "W2", "b2", "W3", "b3", "W4", "b4"),
                params.stream().map(HostTensor::name).toList());
        double sumSq = 0;
        for (float v : params.get(4).values()) {
            sumSq += v * v;
        }
        double std = Math.sqrt(sumSq / params.get(4).size());
        assertTrue(Math.abs(std - 0.01) < 0.0005, "W3 ~ N(0, 0.01²), got std " + std);
        for (float v : params.get(1).values()) {
            assertEquals(0f, v, "biases start at zero");
        }
    }

    @Test
    void noGradientBeforeTheFirstBackwardPass() {
        try (Replica replica =
                Replica.getParams(new LeNet().initialState(3), Synthetic.sim(1).getFirst())) {
            assertNull(replica.param("b1").grad(), "the notebook's None");
        }
    }

    /** Every tensor's gradient against a float64 finite difference ({@link GradientCheck}). */
    @Test
    void gradientOfEveryParameterMatchesFiniteDifference() {
        // weights bigger than the notebook's 0.01, so every layer matters
        GradientCheck.everyTensor(new LeNet(), 0.1f, 5e-3, LeNetGradientTest::referenceLoss);
    }

    /** LeNet's summed loss in float64, layer by layer as {@link LeNet#forward} computes it. */
    private static double referenceLoss(List<double[]> w, double[] x, double[] labels) {
        ConvShape conv1 = new ConvShape(GradientCheck.BATCH, 1, 28, 28, 20, 3, 3),
                conv2 = new ConvShape(GradientCheck.BATCH, 20, 13, 13, 50, 5, 5);
        double[] h1 = Reference.avgPoolForward(
                Reference.reluForward(Reference.conv2dBiasForward(x, w.get(0), w.get(1), conv1)),
                new PoolShape(GradientCheck.BATCH * 20, 26, 26, 2, 2)); // [N, 20, 13, 13]
        double[] h2 = Reference.avgPoolForward(
                Reference.reluForward(Reference.conv2dBiasForward(h1, w.get(2), w.get(3), conv2)),
                new PoolShape(GradientCheck.BATCH * 50, 9, 9, 2, 2)); // [N, 800]
        double[] h3 = Reference.reluForward(Reference.biasAdd(
                Reference.gemm(false, false, GradientCheck.BATCH, 128, 800, 1, h2, w.get(4), 0, null),
                w.get(5),
                new BiasShape(GradientCheck.BATCH, 128, 1))); // [N, 128]
        double[] logits = Reference.biasAdd(
                Reference.gemm(false, false, GradientCheck.BATCH, 10, 128, 1, h3, w.get(6), 0, null),
                w.get(7),
                new BiasShape(GradientCheck.BATCH, 10, 1)); // [N, 10]
        return Arrays.stream(Reference.softmaxCrossEntropyForward(logits, labels, GradientCheck.BATCH, 10))
                .sum();
    }
}
