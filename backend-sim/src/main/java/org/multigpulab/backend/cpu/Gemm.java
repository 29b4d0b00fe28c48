package org.multigpulab.backend.cpu;

import java.util.Arrays;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * Single-threaded row-major matrix multiply {@code C = alpha·op(A)·B + beta·C} on array windows, for a range
 * of rows of C so that callers can split the rows across cores.
 *
 * <p>Register-blocked micro-kernels: four rows of C by four vectors of columns live in sixteen vector
 * accumulators while the loop runs down {@code k}, so each vector of B loaded feeds four fused multiply-adds,
 * each broadcast of A four more, and C is touched once per block instead of once per {@code k}. Columns left
 * over take two-vector and one-vector kernels, then a scalar loop; no masked loads, which the JIT does not
 * keep in registers. B must be in row order
 * {@code [k, n]}; {@link #transpose} puts a transposed one there.
 */
final class Gemm {

    private static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;
    private static final int L = S.length();
    /** Columns per panel: 8 vectors; with k = 500 and 16-float vectors a panel of B is 256 KB. */
    private static final int PANEL = 8 * L;

    private Gemm() {
    }

    static void multiplyRows(boolean transA, int m, int n, int k, float alpha, float[] a, int aOff,
                             float[] b, int bOff, float beta, float[] c, int cOff, int rowFrom, int rowTo) {
        for (int i = rowFrom; i < rowTo; i++) {
            int ci = cOff + i * n;
            if (beta != 0f && beta != 1f) {
                for (int j = 0; j < n; j++) {
                    c[ci + j] *= beta;
                }
            }
        }
        // With beta = 0, C is written without being read: every element is written exactly once below.
        boolean store = beta == 0f;
        // Element (row, p) of op(A) is a[aOff + row·rowStride + p·colStride].
        int rowStride = transA ? 1 : k;
        int colStride = transA ? m : 1;
        // Columns in panels, so that the k × PANEL block of B the row blocks run over stays in the core's cache.
        for (int j0 = 0; j0 < n; j0 += PANEL) {
            int j1 = Math.min(n, j0 + PANEL);
            int i = rowFrom;
            for (; i + 4 <= rowTo; i += 4) {
                int a0 = aOff + i * rowStride, c0 = cOff + i * n;
                int j = j0;
                for (; j + 4 * L <= j1; j += 4 * L) {
                    fourRowsFourVectors(n, k, alpha, a, a0, rowStride, colStride, b, bOff + j, c, c0 + j, store);
                }
                for (; j + 2 * L <= j1; j += 2 * L) {
                    fourRowsTwoVectors(n, k, alpha, a, a0, rowStride, colStride, b, bOff + j, c, c0 + j, store);
                }
                for (; j + L <= j1; j += L) {
                    fourRowsOneVector(n, k, alpha, a, a0, rowStride, colStride, b, bOff + j, c, c0 + j, store);
                }
                for (int r = 0; r < 4; r++) {
                    scalarColumns(n, k, alpha, a, a0 + r * rowStride, colStride, b, bOff, c, c0 + r * n, j, j1, store);
                }
            }
            for (; i < rowTo; i++) {
                int a0 = aOff + i * rowStride, c0 = cOff + i * n;
                int j = j0;
                for (; j + L <= j1; j += L) {
                    oneRowOneVector(n, k, alpha, a, a0, colStride, b, bOff + j, c, c0 + j, store);
                }
                scalarColumns(n, k, alpha, a, a0, colStride, b, bOff, c, c0, j, j1, store);
            }
        }
    }

    /**
     * C[4 rows, 4L columns at c0] += alpha · A[4 rows at a0, :] · B[:, 4L columns at b0]: sixteen accumulators,
     * and per step of k four loads of B and four broadcasts of A feed sixteen fused multiply-adds.
     */
    private static void fourRowsFourVectors(int n, int k, float alpha, float[] a, int a0, int rowStride,
                                            int colStride, float[] b, int b0, float[] c, int c0, boolean store) {
        FloatVector c00 = FloatVector.zero(S), c01 = FloatVector.zero(S), c02 = FloatVector.zero(S), c03 = FloatVector.zero(S);
        FloatVector c10 = FloatVector.zero(S), c11 = FloatVector.zero(S), c12 = FloatVector.zero(S), c13 = FloatVector.zero(S);
        FloatVector c20 = FloatVector.zero(S), c21 = FloatVector.zero(S), c22 = FloatVector.zero(S), c23 = FloatVector.zero(S);
        FloatVector c30 = FloatVector.zero(S), c31 = FloatVector.zero(S), c32 = FloatVector.zero(S), c33 = FloatVector.zero(S);
        int a1 = a0 + rowStride, a2 = a1 + rowStride, a3 = a2 + rowStride;
        for (int p = 0; p < k; p++) {
            int bp = b0 + p * n;
            FloatVector v0 = FloatVector.fromArray(S, b, bp);
            FloatVector v1 = FloatVector.fromArray(S, b, bp + L);
            FloatVector v2 = FloatVector.fromArray(S, b, bp + 2 * L);
            FloatVector v3 = FloatVector.fromArray(S, b, bp + 3 * L);
            int ap = p * colStride;
            FloatVector x = FloatVector.broadcast(S, a[a0 + ap]);
            c00 = v0.fma(x, c00);
            c01 = v1.fma(x, c01);
            c02 = v2.fma(x, c02);
            c03 = v3.fma(x, c03);
            x = FloatVector.broadcast(S, a[a1 + ap]);
            c10 = v0.fma(x, c10);
            c11 = v1.fma(x, c11);
            c12 = v2.fma(x, c12);
            c13 = v3.fma(x, c13);
            x = FloatVector.broadcast(S, a[a2 + ap]);
            c20 = v0.fma(x, c20);
            c21 = v1.fma(x, c21);
            c22 = v2.fma(x, c22);
            c23 = v3.fma(x, c23);
            x = FloatVector.broadcast(S, a[a3 + ap]);
            c30 = v0.fma(x, c30);
            c31 = v1.fma(x, c31);
            c32 = v2.fma(x, c32);
            c33 = v3.fma(x, c33);
        }
        accumulate(c, c0, alpha, c00, store);
        accumulate(c, c0 + L, alpha, c01, store);
        accumulate(c, c0 + 2 * L, alpha, c02, store);
        accumulate(c, c0 + 3 * L, alpha, c03, store);
        accumulate(c, c0 + n, alpha, c10, store);
        accumulate(c, c0 + n + L, alpha, c11, store);
        accumulate(c, c0 + n + 2 * L, alpha, c12, store);
        accumulate(c, c0 + n + 3 * L, alpha, c13, store);
        accumulate(c, c0 + 2 * n, alpha, c20, store);
        accumulate(c, c0 + 2 * n + L, alpha, c21, store);
        accumulate(c, c0 + 2 * n + 2 * L, alpha, c22, store);
        accumulate(c, c0 + 2 * n + 3 * L, alpha, c23, store);
        accumulate(c, c0 + 3 * n, alpha, c30, store);
        accumulate(c, c0 + 3 * n + L, alpha, c31, store);
        accumulate(c, c0 + 3 * n + 2 * L, alpha, c32, store);
        accumulate(c, c0 + 3 * n + 3 * L, alpha, c33, store);
    }

    /** C[4 rows, 2L columns at c0] += alpha · A[4 rows at a0, :] · B[:, 2L columns at b0]. */
    private static void fourRowsTwoVectors(int n, int k, float alpha, float[] a, int a0, int rowStride,
                                           int colStride, float[] b, int b0, float[] c, int c0, boolean store) {
        FloatVector c00 = FloatVector.zero(S), c01 = FloatVector.zero(S);
        FloatVector c10 = FloatVector.zero(S), c11 = FloatVector.zero(S);
        FloatVector c20 = FloatVector.zero(S), c21 = FloatVector.zero(S);
        FloatVector c30 = FloatVector.zero(S), c31 = FloatVector.zero(S);
        int a1 = a0 + rowStride, a2 = a1 + rowStride, a3 = a2 + rowStride;
        for (int p = 0; p < k; p++) {
            int bp = b0 + p * n;
            FloatVector v0 = FloatVector.fromArray(S, b, bp);
            FloatVector v1 = FloatVector.fromArray(S, b, bp + L);
            int ap = p * colStride;
            FloatVector x = FloatVector.broadcast(S, a[a0 + ap]);
            c00 = v0.fma(x, c00);
            c01 = v1.fma(x, c01);
            x = FloatVector.broadcast(S, a[a1 + ap]);
            c10 = v0.fma(x, c10);
            c11 = v1.fma(x, c11);
            x = FloatVector.broadcast(S, a[a2 + ap]);
            c20 = v0.fma(x, c20);
            c21 = v1.fma(x, c21);
            x = FloatVector.broadcast(S, a[a3 + ap]);
            c30 = v0.fma(x, c30);
            c31 = v1.fma(x, c31);
        }
        accumulate(c, c0, alpha, c00, store);
        accumulate(c, c0 + L, alpha, c01, store);
        accumulate(c, c0 + n, alpha, c10, store);
        accumulate(c, c0 + n + L, alpha, c11, store);
        accumulate(c, c0 + 2 * n, alpha, c20, store);
        accumulate(c, c0 + 2 * n + L, alpha, c21, store);
        accumulate(c, c0 + 3 * n, alpha, c30, store);
        accumulate(c, c0 + 3 * n + L, alpha, c31, store);
    }

    /** C[4 rows, L columns at c0] += alpha · A[4 rows at a0, :] · B[:, L columns at b0]. */
    private static void fourRowsOneVector(int n, int k, float alpha, float[] a, int a0, int rowStride,
                                          int colStride, float[] b, int b0, float[] c, int c0, boolean store) {
        FloatVector c0v = FloatVector.zero(S), c1v = FloatVector.zero(S);
        FloatVector c2v = FloatVector.zero(S), c3v = FloatVector.zero(S);
        int a1 = a0 + rowStride, a2 = a1 + rowStride, a3 = a2 + rowStride;
        for (int p = 0; p < k; p++) {
            FloatVector v = FloatVector.fromArray(S, b, b0 + p * n);
            int ap = p * colStride;
            c0v = v.fma(FloatVector.broadcast(S, a[a0 + ap]), c0v);
            c1v = v.fma(FloatVector.broadcast(S, a[a1 + ap]), c1v);
            c2v = v.fma(FloatVector.broadcast(S, a[a2 + ap]), c2v);
            c3v = v.fma(FloatVector.broadcast(S, a[a3 + ap]), c3v);
        }
        accumulate(c, c0, alpha, c0v, store);
        accumulate(c, c0 + n, alpha, c1v, store);
        accumulate(c, c0 + 2 * n, alpha, c2v, store);
        accumulate(c, c0 + 3 * n, alpha, c3v, store);
    }

    /** C[1 row, L columns at c0] += alpha · A[1 row at a0, :] · B[:, L columns at b0]. */
    private static void oneRowOneVector(int n, int k, float alpha, float[] a, int a0, int colStride,
                                        float[] b, int b0, float[] c, int c0, boolean store) {
        FloatVector acc = FloatVector.zero(S);
        for (int p = 0; p < k; p++) {
            acc = FloatVector.fromArray(S, b, b0 + p * n).fma(FloatVector.broadcast(S, a[a0 + p * colStride]), acc);
        }
        accumulate(c, c0, alpha, acc, store);
    }

    /** C[1 row, columns from..to) += alpha · A[1 row at a0, :] · B[:, from..to), one column at a time. */
    private static void scalarColumns(int n, int k, float alpha, float[] a, int a0, int colStride,
                                      float[] b, int bOff, float[] c, int c0, int from, int to, boolean store) {
        for (int j = from; j < to; j++) {
            float sum = 0f;
            for (int p = 0; p < k; p++) {
                sum = Math.fma(a[a0 + p * colStride], b[bOff + p * n + j], sum);
            }
            c[c0 + j] = (store ? 0f : c[c0 + j]) + alpha * sum;
        }
    }

    /**
     * C[m, n] += A[m, k] · B[n, k]ᵀ as m·n dot products along k, where rows of both A and B are contiguous:
     * the better form when n is too narrow for the column kernels (a 3×3 filter's 9 taps).
     */
    static void multiplyTransposedB(int m, int n, int k, float[] a, int aOff, float[] b, int bOff,
                                    float[] c, int cOff) {
        int vectorEnd = k / L * L;
        for (int i = 0; i < m; i++) {
            int ai = aOff + i * k;
            for (int j = 0; j < n; j++) {
                int bj = bOff + j * k;
                FloatVector acc = FloatVector.zero(S);
                for (int p = 0; p < vectorEnd; p += L) {
                    acc = FloatVector.fromArray(S, a, ai + p).fma(FloatVector.fromArray(S, b, bj + p), acc);
                }
                float sum = acc.reduceLanes(jdk.incubator.vector.VectorOperators.ADD);
                for (int p = vectorEnd; p < k; p++) {
                    sum = Math.fma(a[ai + p], b[bj + p], sum);
                }
                c[cOff + i * n + j] += sum;
            }
        }
    }

    /**
     * The sum of {@code a[from, from + n)}, a vector of partial sums at a time: a scalar loop would wait on
     * each addition's latency.
     */
    static float sum(float[] a, int from, int n) {
        int vectorEnd = n / L * L;
        FloatVector acc = FloatVector.zero(S);
        for (int i = 0; i < vectorEnd; i += L) {
            acc = acc.add(FloatVector.fromArray(S, a, from + i));
        }
        float sum = acc.reduceLanes(jdk.incubator.vector.VectorOperators.ADD);
        for (int i = vectorEnd; i < n; i++) {
            sum += a[from + i];
        }
        return sum;
    }

    /** {@code out[i] = x[i] > 0 ? dy[i] : 0} for i in {@code [from, to)}, with vector masks, no branches. */
    static void passWherePositive(float[] x, int xOff, float[] dy, int dyOff, float[] out, int outOff, int from, int to) {
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

    /** Whether {@code n} columns are too few for the vector column kernels. */
    static boolean narrow(int n) {
        return n < 2 * L;
    }

    /** C at {@code at} gets alpha·v: added to it, or with {@code store} (beta = 0) written over it unread. */
    private static void accumulate(float[] c, int at, float alpha, FloatVector v, boolean store) {
        FloatVector scaled = alpha == 1f ? v : v.mul(alpha);
        (store ? scaled : FloatVector.fromArray(S, c, at).add(scaled)).intoArray(c, at);
    }

    /** {@code n} rounded up to whole vectors. */
    static int roundUpToVectors(int n) {
        return (n + L - 1) / L * L;
    }

    /** {@code dst[cols, width] = src[rows, cols]ᵀ}, each row of dst padded with zeros from {@code rows} to {@code width}. */
    static void transposePadded(float[] src, int rows, int cols, float[] dst, int width) {
        for (int c = 0; c < cols; c++) {
            int d = c * width;
            for (int r = 0; r < rows; r++) {
                dst[d + r] = src[r * cols + c];
            }
            Arrays.fill(dst, d + rows, d + width, 0f);
        }
    }

    /** {@code dst[cols, rows] = src[rows, cols]ᵀ}. */
    static void transpose(float[] src, int srcOff, int rows, int cols, float[] dst) {
        for (int r = 0; r < rows; r++) {
            for (int c = 0; c < cols; c++) {
                dst[c * rows + r] = src[srcOff + r * cols + c];
            }
        }
    }
}
