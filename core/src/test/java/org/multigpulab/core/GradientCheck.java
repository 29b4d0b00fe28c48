package org.multigpulab.core;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.multigpulab.core.autograd.Ops;
import org.multigpulab.core.autograd.Tape;
import org.multigpulab.core.autograd.Tensor;
import org.multigpulab.core.data.BatchIterator;
import org.multigpulab.core.data.HostBatch;
import org.multigpulab.core.model.HostTensor;
import org.multigpulab.core.model.Mode;
import org.multigpulab.core.model.Model;
import org.multigpulab.core.parallel.Replica;
import org.multigpulab.device.Device;
import org.multigpulab.device.conformance.Reference;

/**
 * A model's gradient, one parameter tensor at a time (each bias too): the tape's gradient along a random direction
 * in that tensor against a central difference of the model's summed loss computed in float64 with {@link
 * Reference}'s kernels. In float32 such a difference is useless for the first layers (ReLU kinks and rounding move
 * it by several per cent); in float64 with a tiny step it is exact to many digits.
 */
public final class GradientCheck {

    /** Images in the batch the gradient is taken on. */
    public static final int BATCH = 4;

    /** A model's summed loss over {@link #BATCH} images, computed in float64. */
    @FunctionalInterface
    public interface ReferenceLoss {
        double of(List<double[]> params, double[] images, double[] labels);
    }

    private GradientCheck() {}

    /**
     * Checks every tensor of {@code model}, its parameters drawn from N(0, scale²), within {@code tolerance} times
     * the magnitude of the directional derivative's terms, {@code Σ|g·v|}: agreement is to about 1e-7 of it,
     * except where a unit's pre-activation lies so near zero that float32 and float64 put it on different sides of
     * ReLU's kink (that unit's share, up to about 1e-3); a wiring fault is O(1).
     */
    public static void everyTensor(Model model, float scale, double tolerance, ReferenceLoss referenceLoss) {
        Device device = Synthetic.sim(1).getFirst();
        long seed = System.nanoTime();
        Random random = new Random(seed);
        List<HostTensor> init = model.initialState(3).stream()
                .map(p -> {
                    float[] v = p.values().clone();
                    for (int i = 0; i < v.length; i++) {
                        v[i] = (float) random.nextGaussian() * scale;
                    }
                    return new HostTensor(p.name(), p.shape(), v);
                })
                .toList();
        HostBatch batch = new BatchIterator(Synthetic.images("t", BATCH, 5), BATCH).next();
        try (Replica replica = Replica.getParams(init, device)) {
            Tensor x = Tensor.of(device.upload(batch.x()), false, BATCH, 1, 28, 28);
            Tensor y = Tensor.of(device.upload(batch.y()), false, BATCH);
            try (Tape tape = Tape.training(replica.workspace())) {
                tape.backward(
                        Ops.crossEntropySum(tape, model.forward(tape, x, replica.params(), List.of(), Mode.TRAIN), y));
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
                double numeric = (referenceLoss.of(shifted(at, p, v, h), images, labels)
                                - referenceLoss.of(shifted(at, p, v, -h), images, labels))
                        / (2 * h);
                assertEquals(
                        numeric,
                        analytic,
                        tolerance * terms,
                        "the gradient of " + model.name() + "'s " + init.get(p).name()
                                + " along a random direction in it alone; random seed " + seed);
            }
        } finally {
            device.close();
        }
    }

    private static List<double[]> shifted(List<double[]> params, int which, double[] v, double h) {
        List<double[]> out = new ArrayList<>(params);
        double[] p = params.get(which).clone();
        for (int i = 0; i < p.length; i++) {
            p[i] += h * v[i];
        }
        out.set(which, p);
        return out;
    }
}
