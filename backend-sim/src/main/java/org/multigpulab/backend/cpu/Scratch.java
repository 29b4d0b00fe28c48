package org.multigpulab.backend.cpu;

/**
 * Per-thread working arrays that grow to the largest size asked and are then reused, so kernels allocate
 * nothing once the first batch has run. Each instance is one named purpose (im2col columns, a transposed
 * operand, partial sums), so two uses in one kernel never share an array.
 */
final class Scratch {

    private final ThreadLocal<float[]> arrays = ThreadLocal.withInitial(() -> new float[0]);

    /** An array of at least {@code n} floats with unspecified contents, private to the calling thread. */
    float[] get(int n) {
        float[] a = arrays.get();
        if (a.length < n) {
            a = new float[n];
            arrays.set(a);
        }
        return a;
    }
}
