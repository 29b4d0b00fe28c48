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

    /**
     * The index in a float array at which its elements start on a 64-byte cache line, where the JVM places every
     * object on such a line ({@code -XX:ObjectAlignmentInBytes=64}, as {@code ./lab} runs it): panels start there,
     * so that no vector of a panel's row straddles two lines. Else 0, and where a panel starts is the heap's
     * choice.
     */
    static final int LINE_START = lineStart();

    /** Floats in a 64-byte cache line. */
    static final int LINE_FLOATS = 64 / Float.BYTES;

    private static int lineStart() {
        String alignment = VmOptions.get("ObjectAlignmentInBytes");
        if (alignment == null || Integer.parseInt(alignment) % 64 != 0) {
            return 0;
        }
        try {
            int base = Class.forName("sun.misc.Unsafe")
                    .getField("ARRAY_FLOAT_BASE_OFFSET")
                    .getInt(null);
            return (LINE_FLOATS - base / Float.BYTES % LINE_FLOATS) % LINE_FLOATS;
        } catch (ReflectiveOperationException | RuntimeException e) {
            return 0; // the elements' offset is not known on this JVM
        }
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
