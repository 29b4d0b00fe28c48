package org.multigpulab.core.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class UpdateDistanceTest {

    /** {@code start} plus a random update of about 1e-3 on every value. */
    private static List<HostTensor> trained(List<HostTensor> start, long seed) {
        Random random = new Random(seed);
        List<HostTensor> out = new ArrayList<>();
        for (HostTensor t : start) {
            float[] v = t.values().clone();
            for (int i = 0; i < v.length; i++) {
                v[i] += 1e-3f * (float) random.nextGaussian();
            }
            out.add(new HostTensor(t.name(), t.shape(), v));
        }
        return out;
    }

    /** {@code params} with the update of tensor {@code name} from {@code start} 10 % too large. */
    private static List<HostTensor> spoilTheUpdateOf(String name, List<HostTensor> start, List<HostTensor> params) {
        List<HostTensor> out = new ArrayList<>(params);
        int p = out.stream().map(HostTensor::name).toList().indexOf(name);
        float[] s = start.get(p).values(), v = params.get(p).values().clone();
        for (int i = 0; i < v.length; i++) {
            v[i] = s[i] + 1.1f * (v[i] - s[i]);
        }
        out.set(p, new HostTensor(name, params.get(p).shape(), v));
        return out;
    }

    @Test
    void aWrongBiasUpdateIsTheWorstTensorWhereTheNormOfAllParametersHardlyMoves() {
        List<HostTensor> start = new LeNet().initialState(0);
        List<HostTensor> right = trained(start, 1);
        List<HostTensor> wrong = spoilTheUpdateOf("b4", start, right);

        // 4.7e-5: within a bound of 1e-4 on this measure, though b4 moved 10 % too far
        assertTrue(
                ParameterDistance.relative(wrong, right) < 1e-4,
                "the norm of all parameters hardly moves: " + ParameterDistance.relative(wrong, right));
        UpdateDistance d = UpdateDistance.of(start, wrong, right);
        assertEquals("b4", d.worst().name(), d.toString());
        assertEquals(0.1, d.worst().relative(), 1e-5, d.toString());
        assertTrue(
                d.tensors().stream().filter(e -> !e.name().equals("b4")).allMatch(e -> e.relative() == 0),
                d.toString());
        assertTrue(d.toString().startsWith("worst b4 0.10 (W1 0.0, b1 0.0, "), d.toString());
    }

    @Test
    void equalUpdatesAreZeroAndAnUpdateWhereTheReferenceHasNoneIsInfinite() {
        List<HostTensor> start = new LeNet().initialState(0);
        List<HostTensor> trained = trained(start, 2);
        assertEquals(0, UpdateDistance.of(start, trained, trained).worst().relative());
        assertEquals(0, UpdateDistance.of(start, start, start).worst().relative(), "neither moved");
        UpdateDistance d = UpdateDistance.of(start, trained, start);
        assertEquals(Double.POSITIVE_INFINITY, d.worst().relative(), d.toString());
    }

    @Test
    void aNaNIsTheWorst() {
        List<HostTensor> start = new LeNet().initialState(0);
        List<HostTensor> trained = trained(start, 3);
        List<HostTensor> broken = new ArrayList<>(trained);
        float[] b2 = trained.get(3).values().clone();
        b2[0] = Float.NaN;
        broken.set(3, new HostTensor("b2", trained.get(3).shape(), b2));
        UpdateDistance d = UpdateDistance.of(start, broken, trained);
        assertEquals("b2", d.worst().name(), d.toString());
        assertTrue(!(d.worst().relative() < 1), "a bound check fails on NaN: " + d);
    }

    @Test
    void setsOfDifferentTensorsAreRefusedByName() {
        List<HostTensor> start = new LeNet().initialState(0);
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class, () -> UpdateDistance.of(start, start.subList(0, 7), start));
        assertEquals("8 tensors at the start, 7 and 8 after training", e.getMessage());
        List<HostTensor> renamed = new ArrayList<>(start);
        renamed.set(1, new HostTensor("bias", start.get(1).shape(), start.get(1).values()));
        e = assertThrows(IllegalArgumentException.class, () -> UpdateDistance.of(start, start, renamed));
        assertEquals("tensor b1 at the start is b1 and bias after training", e.getMessage());
    }
}
