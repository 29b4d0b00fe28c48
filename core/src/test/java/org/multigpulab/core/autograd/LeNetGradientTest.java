package org.multigpulab.core.autograd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.multigpulab.core.Synthetic;
import org.multigpulab.core.data.BatchIterator;
import org.multigpulab.core.data.HostBatch;
import org.multigpulab.core.model.HostTensor;
import org.multigpulab.core.model.LeNet;
import org.multigpulab.core.parallel.Replica;
import org.multigpulab.device.BiasShape;
import org.multigpulab.device.ConvShape;
import org.multigpulab.device.Device;
import org.multigpulab.device.PoolShape;
import org.multigpulab.device.conformance.Reference;

/** The tape's wiring: LeNet's gradient against a finite difference of its own loss. */
class LeNetGradientTest {

    private static double loss(Replica replica, Tensor x, Tensor y) {
        try (Tape tape = Tape.inference(replica.workspace())) {
            Tensor losses = Ops.crossEntropySum(tape, new LeNet().forward(tape, x, replica.params()), y);
            double s = 0;
            for (float v : replica.device().download(losses.data().slice(0, losses.size()))) {
                s += v;
            }
            return s;
        }
    }

    @Test
    void modelHasTheNotebooksShapesAndParameterCount() {
        assertEquals(129_068, new LeNet().parameterCount());
        List<HostTensor> params = new LeNet().initParams(0);
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

    /**
     * Every parameter tensor on its own (each bias too): the tape's gradient along a random direction in that
     * tensor against a central difference of LeNet's loss computed in float64 with {@link Reference}'s kernels.
     * In float32 the difference is useless for the first layer: ReLU kinks and rounding move it by several per
     * cent; in float64 with a tiny step it is exact to many digits.
     */
    @Test
    void gradientOfEveryParameterMatchesFiniteDifference() {
        Device device = Synthetic.sim(1).getFirst();
        long seed = System.nanoTime();
        Random random = new Random(seed);
        List<HostTensor> init = new LeNet()
                .initParams(3).stream()
                        .map(p -> {
                            float[] v = p.values().clone();
                            for (int i = 0; i < v.length; i++) {
                                v[i] = (float) random.nextGaussian()
                                        * 0.1f; // bigger than the notebook's 0.01, so every layer matters
                            }
                            return new HostTensor(p.name(), p.shape(), v);
                        })
                        .toList();
        HostBatch batch = new BatchIterator(Synthetic.images("t", BATCH, 5), BATCH).next();
        try (Replica replica = Replica.getParams(init, device)) {
            assertNull(replica.param("b1").grad(), "no gradient before the first backward pass (the notebook's None)");
            Tensor x = Tensor.of(device.upload(batch.x()), false, BATCH, 1, 28, 28);
            Tensor y = Tensor.of(device.upload(batch.y()), false, BATCH);
            try (Tape tape = Tape.training(replica.workspace())) {
                tape.backward(Ops.crossEntropySum(tape, new LeNet().forward(tape, x, replica.params()), y));
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
                // Agreement is to about 1e-7 of the terms' magnitude, except where a unit's pre-activation lies so
                // near zero that float32 and float64 put it on different sides of ReLU's kink: then that unit's
                // share, up to about 1e-3, is in the gradient of one and not of the other. A wiring fault is O(1).
                assertEquals(
                        numeric,
                        analytic,
                        5e-3 * terms,
                        "the gradient of " + init.get(p).name() + " along a random direction in it alone; random seed "
                                + seed);
            }
        }
    }

    private static final int BATCH = 4;

    private static List<double[]> shifted(List<double[]> params, int which, double[] v, double h) {
        List<double[]> out = new java.util.ArrayList<>(params);
        double[] p = params.get(which).clone();
        for (int i = 0; i < p.length; i++) {
            p[i] += h * v[i];
        }
        out.set(which, p);
        return out;
    }

    /** LeNet's summed loss in float64, layer by layer as {@link LeNet#forward} computes it. */
    private static double referenceLoss(List<double[]> w, double[] x, double[] labels) {
        ConvShape conv1 = new ConvShape(BATCH, 1, 28, 28, 20, 3, 3), conv2 = new ConvShape(BATCH, 20, 13, 13, 50, 5, 5);
        double[] h1 = Reference.avgPoolForward(
                Reference.reluForward(Reference.biasAdd(
                        Reference.conv2dForward(x, w.get(0), conv1), w.get(1), new BiasShape(BATCH, 20, 26 * 26))),
                new PoolShape(BATCH * 20, 26, 26, 2, 2)); // [N, 20, 13, 13]
        double[] h2 = Reference.avgPoolForward(
                Reference.reluForward(Reference.biasAdd(
                        Reference.conv2dForward(h1, w.get(2), conv2), w.get(3), new BiasShape(BATCH, 50, 9 * 9))),
                new PoolShape(BATCH * 50, 9, 9, 2, 2)); // [N, 800]
        double[] h3 = Reference.reluForward(Reference.biasAdd(
                Reference.gemm(false, false, BATCH, 128, 800, 1, h2, w.get(4), 0, null),
                w.get(5),
                new BiasShape(BATCH, 128, 1))); // [N, 128]
        double[] logits = Reference.biasAdd(
                Reference.gemm(false, false, BATCH, 10, 128, 1, h3, w.get(6), 0, null),
                w.get(7),
                new BiasShape(BATCH, 10, 1)); // [N, 10]
        return java.util.Arrays.stream(Reference.softmaxCrossEntropyForward(logits, labels, BATCH, 10))
                .sum();
    }
}
