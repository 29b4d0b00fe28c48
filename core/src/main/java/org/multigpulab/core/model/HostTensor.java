package org.multigpulab.core.model;

import java.util.Arrays;

/**
 * A named float32 tensor in host memory: a parameter as it is initialised, saved or loaded. The record does
 * not copy its arrays; treat them as read-only once made.
 */
public record HostTensor(String name, int[] shape, float[] values) {

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
