package org.multigpulab.core.model;

import java.util.Arrays;

/**
 * One buffer of a {@link Model}, PyTorch's {@code register_buffer}: state that is not trained (BatchNorm's
 * {@code running_mean}, {@code running_var}, {@code num_batches_tracked}). It has no gradient and takes no part in
 * the gradients' sum; data parallelism broadcasts device 0's (rank 0's) before each training forward pass, as DDP
 * does with {@code broadcast_buffers=True}, and files hold it under its {@code state_dict} name. An {@code integral}
 * buffer counts (PyTorch's int64): on a device it is a float, exact up to 2²⁴, and files hold it as I64.
 */
public record BufferSpec(String name, float initial, boolean integral, int... shape) {

    /** A float buffer whose values start at {@code initial}. */
    public static BufferSpec floats(String name, float initial, int... shape) {
        return new BufferSpec(name, initial, false, shape);
    }

    /** A counter that starts at zero, held as int64 in files. */
    public static BufferSpec counter(String name) {
        return new BufferSpec(name, 0, true);
    }

    public int size() {
        int n = 1;
        for (int d : shape) {
            n *= d;
        }
        return n;
    }

    /** The buffer as it starts. */
    public HostTensor initialise() {
        float[] values = new float[size()];
        Arrays.fill(values, initial);
        return new HostTensor(name, shape.clone(), values, integral);
    }

    @Override
    public String toString() {
        return name + " " + Arrays.toString(shape);
    }
}
