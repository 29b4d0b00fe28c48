package org.multigpulab.backend.cpu;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * The element-wise vector loops the {@code cpu} kernels share: sums, ReLU both ways, and the short-row copies
 * and additions of im2col and col2im. Single-threaded, on array windows; callers split the work over cores.
 *
 * <p>Every vector here and in the other kernels is of the one species {@link Gemm#species}. The Vector API's
 * methods ({@code intoArray}, {@code add}, …) are shared by all shapes, and once their profiles have also seen
 * half-width vectors, C2 compiles our kernels' calls for both shapes, and whether a kernel runs at full speed then
 * depends on which the JIT happened to compile first (docs/performance-log.md, "One vector species").
 */
final class Vectors {

    private static final VectorSpecies<Float> S = Gemm.species();
    private static final int L = S.length();

    private static final Scratch<float[]> LANES = Scratch.floats();

    private Vectors() {}

    /**
     * The sum of {@code v}'s lanes, first to last. {@code reduceLanes(ADD)} adds them in lane order while the
     * JIT has not compiled it and in another order once it has, so the same kernel on the same inputs would
     * give other bits later in a run; in order, a run gives the same bits every time.
     */
    static float sumLanes(FloatVector v) {
        float[] lanes = LANES.get(L);
        v.intoArray(lanes, 0);
        return sumLanes(lanes, 0);
    }

    /** The sum of the L floats at {@code lanes[at]}, first to last, as {@link #sumLanes(FloatVector)} adds them. */
    static float sumLanes(float[] lanes, int at) {
        float sum = 0;
        for (int i = 0; i < L; i++) {
            sum += lanes[at + i];
        }
        return sum;
    }

    /**
     * {@code y[i] = max(x[i], 0)} for i in {@code [from, to)}, NaN kept as {@code Math.max} keeps it: the lanes
     * at or below zero replaced by zero in a vector with a compare and a blend: a loop over {@code Math.max}, which
     * must order −0 below 0, takes several instructions more (docs/performance-log.md).
     */
    static void relu(float[] x, int xOff, float[] y, int yOff, int from, int to) {
        int i = from;
        FloatVector zero = FloatVector.zero(S);
        for (; i + L <= to; i += L) {
            FloatVector v = FloatVector.fromArray(S, x, xOff + i);
            v.blend(zero, v.compare(VectorOperators.LE, 0f)).intoArray(y, yOff + i);
        }
        for (; i < to; i++) {
            y[yOff + i] = Math.max(x[xOff + i], 0f);
        }
    }

    /** {@code out[i] = x[i] > 0 ? dy[i] : 0} for i in {@code [from, to)}, with vector masks, no branches. */
    static void passWherePositive(
            float[] x, int xOff, float[] dy, int dyOff, float[] out, int outOff, int from, int to) {
        int i = from;
        FloatVector zero = FloatVector.zero(S);
        for (; i + L <= to; i += L) {
            VectorMask<Float> positive = FloatVector.fromArray(S, x, xOff + i).compare(VectorOperators.GT, 0f);
            zero.blend(FloatVector.fromArray(S, dy, dyOff + i), positive).intoArray(out, outOff + i);
        }
        for (; i < to; i++) {
            out[outOff + i] = x[xOff + i] > 0f ? dy[dyOff + i] : 0f;
        }
    }

    /**
     * {@code dst[d, d + n) = src[s, s + n)} for a row of at least one vector (conv1's 26 pixels): whole vectors,
     * the last of them moved back to end where the row ends, so it copies a few floats a second time rather than
     * finish under a mask or one float at a time. {@code System.arraycopy} costs more than such a row. A row of up
     * to two vectors (conv2's 9 pixels at 256 bits) is two overlapping copies with no loop.
     */
    static void copyRow(float[] src, int s, float[] dst, int d, int n) {
        if (n <= 2 * L) {
            FloatVector.fromArray(S, src, s).intoArray(dst, d);
            FloatVector.fromArray(S, src, s + n - L).intoArray(dst, d + n - L);
            return;
        }
        int i = 0;
        for (; i + L <= n; i += L) {
            FloatVector.fromArray(S, src, s + i).intoArray(dst, d + i);
        }
        if (i < n) {
            FloatVector.fromArray(S, src, s + n - L).intoArray(dst, d + n - L);
        }
    }

    /**
     * {@code dst[d, d + n) = src[s, s + n) + v}: as {@link #copyRow} for a row of at least one vector (the last
     * moved back, its overlap written twice with the same sums), one float at a time for a shorter one.
     */
    static void copyRowPlus(float[] src, int s, float v, float[] dst, int d, int n) {
        if (n < L) {
            for (int i = 0; i < n; i++) {
                dst[d + i] = src[s + i] + v;
            }
            return;
        }
        FloatVector value = FloatVector.broadcast(S, v);
        int i = 0;
        for (; i + L <= n; i += L) {
            FloatVector.fromArray(S, src, s + i).add(value).intoArray(dst, d + i);
        }
        if (i < n) {
            FloatVector.fromArray(S, src, s + n - L).add(value).intoArray(dst, d + n - L);
        }
    }

    /** The mask of a row of {@code n} floats shorter than a vector, for {@link #copyShortRow}. */
    static VectorMask<Float> shortRowMask(int n) {
        return S.indexInRange(0, n);
    }

    /**
     * {@code dst[d, d + n) = src[s, s + n)} for a row shorter than a vector (conv2's 9 pixels at 512 bits), under
     * {@code mask} ({@link #shortRowMask}, made once for the many rows of one length), or one by one where masked
     * stores are dear ({@link Gemm#CHEAP_MASKED_STORES}).
     */
    static void copyShortRow(float[] src, int s, float[] dst, int d, int n, VectorMask<Float> mask) {
        if (Gemm.CHEAP_MASKED_STORES) {
            FloatVector.fromArray(S, src, s, mask).intoArray(dst, d, mask);
        } else {
            for (int i = 0; i < n; i++) {
                dst[d + i] = src[s + i];
            }
        }
    }

    /**
     * {@code dst[d, d + n) += src[s, s + n)}: whole vectors, then single floats. Not masked like {@link #copyRow}:
     * col2im's short rows would then load under a mask right after a masked store, which costs more than the
     * single floats (docs/performance-log.md).
     */
    static void addRow(float[] src, int s, float[] dst, int d, int n) {
        int i = 0;
        for (; i + L <= n; i += L) {
            FloatVector.fromArray(S, dst, d + i)
                    .add(FloatVector.fromArray(S, src, s + i))
                    .intoArray(dst, d + i);
        }
        for (; i < n; i++) {
            dst[d + i] += src[s + i];
        }
    }
}
