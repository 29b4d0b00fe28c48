package org.multigpulab.backend.cpu;

import java.util.function.IntFunction;
import java.util.function.ToIntFunction;

/**
 * Per-thread working arrays that grow to the largest size asked and are then reused, so kernels allocate
 * nothing once the first batch has run. Each instance is one named purpose (a packed panel, a transposed
 * operand, an offset table), so two uses in one kernel never share an array.
 */
final class Scratch<A> {

    private final IntFunction<A> make;
    private final ToIntFunction<A> length;
    private final ThreadLocal<A> arrays;

    private Scratch(IntFunction<A> make, ToIntFunction<A> length) {
        this.make = make;
        this.length = length;
        this.arrays = ThreadLocal.withInitial(() -> make.apply(0));
    }

    static Scratch<float[]> floats() {
        return new Scratch<>(float[]::new, a -> a.length);
    }

    static Scratch<int[]> ints() {
        return new Scratch<>(int[]::new, a -> a.length);
    }

    /** An array of at least {@code n} elements with unspecified contents, private to the calling thread. */
    A get(int n) {
        A a = arrays.get();
        if (length.applyAsInt(a) < n) {
            a = make.apply(n);
            arrays.set(a);
        }
        return a;
    }
}
