package org.multigpulab.core.model;

import java.util.Arrays;

/**
 * A named tensor in host memory: a parameter or a buffer as it is initialised, saved or loaded. Its values are
 * float32; an {@code integral} one (a counter) holds whole numbers and files keep it as int64. The record does not
 * copy its arrays; treat them as read-only once made.
 */
public record HostTensor(String name, int[] shape, float[] values, boolean integral) {

    /** A float32 tensor. */
    public HostTensor(String name, int[] shape, float[] values) {
        this(name, shape, values, false);
    }

    public HostTensor {
        int size = 1;
        for (int d : shape) {
            size *= d;
        }
        if (size != values.length) {
            throw new IllegalArgumentException(
                    name + ": shape " + Arrays.toString(shape) + " holds " + size + " values, not " + values.length);
        }
    }

    public int size() {
        return values.length;
    }

    public String shapeText() {
        return Arrays.toString(shape);
    }
}
