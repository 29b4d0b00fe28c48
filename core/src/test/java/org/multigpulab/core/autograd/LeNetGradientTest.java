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
import org.multigpulab.device.Device;

/** The tape's wiring: LeNet's gradient against a finite difference of its own loss. */
class LeNetGradientTest {

    private static double loss(Replica replica, Tensor x, Tensor y) {
        try (Tape tape = Tape.inference(replica.workspace())) {
            Tensor losses = Ops.crossEntropySum(tape, LeNet.forward(tape, x, replica.params()), y);
            double s = 0;
            for (float v : replica.device().download(losses.data().slice(0, losses.size()))) {
                s += v;
            }
            return s;
        }
    }

    @Test
    void modelHasTheSeedsShapesAndParameterCount() {
        assertEquals(129_068, LeNet.parameterCount());
        List<HostTensor> params = LeNet.initParams(0);
        assertEquals(List.of("W1", "b1", "W2", "b2", "W3", "b3", "W4", "b4"), params.stream().map(HostTensor::name).toList());
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
    void gradientOfEveryParameterMatchesFiniteDifference() {
        Device device = Synthetic.sim(1).getFirst();
        Random random = new Random(7);
        List<HostTensor> init = LeNet.initParams(3).stream().map(p -> {
            float[] v = p.values().clone();
            for (int i = 0; i < v.length; i++) {
                v[i] = (float) random.nextGaussian() * 0.1f;   // bigger than the seed's 0.01, so every layer matters
            }
            return new HostTensor(p.name(), p.shape(), v);
        }).toList();
        HostBatch batch = new BatchIterator(Synthetic.images("t", 4, 5), 4).next();
        try (Replica replica = Replica.getParams(init, device)) {
            assertNull(replica.param("b1").grad(), "no gradient before the first backward pass (the notebook's None)");
            Tensor x = Tensor.of(device.upload(batch.x()), false, 4, 1, 28, 28);
            Tensor y = Tensor.of(device.upload(batch.y()), false, 4);
            try (Tape tape = Tape.training(replica.workspace())) {
                tape.backward(Ops.crossEntropySum(tape, LeNet.forward(tape, x, replica.params()), y));
            }
            // Directional derivative along a random direction in the space of all parameters.
            double analytic = 0;
            float h = 1e-3f;
            List<float[]> directions = new java.util.ArrayList<>();
            for (Tensor p : replica.params()) {
                float[] v = new float[p.size()];
                float[] g = device.download(p.grad());
                for (int i = 0; i < v.length; i++) {
                    v[i] = (float) random.nextGaussian();
                    analytic += (double) g[i] * v[i];
                }
                directions.add(v);
            }
            double[] at = new double[2];
            for (int side = 0; side < 2; side++) {
                float sign = side == 0 ? 1 : -1;
                for (int p = 0; p < init.size(); p++) {
                    float[] shifted = init.get(p).values().clone();
                    for (int i = 0; i < shifted.length; i++) {
                        shifted[i] += sign * h * directions.get(p)[i];
                    }
                    device.upload(shifted, 0, replica.params().get(p).data());
                }
                at[side] = loss(replica, x, y);
            }
            double numeric = (at[0] - at[1]) / (2 * h);
            assertEquals(numeric, analytic, 2e-2 * Math.abs(numeric), "directional derivative of the summed loss");
        }
    }
}
