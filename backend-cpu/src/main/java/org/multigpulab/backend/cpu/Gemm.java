package org.multigpulab.backend.cpu;

import java.util.Arrays;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorSpecies;

/**
 * Single-threaded row-major matrix multiply {@code C = alpha·op(A)·B + beta·C} on array windows, for a range
 * of rows of C so that callers can split the rows across cores.
 *
 * <p>Register-blocked micro-kernels: four rows of C by four vectors of columns live in sixteen vector
 * accumulators while the loop runs down {@code k}, so each vector of B loaded feeds four fused multiply-adds,
 * each broadcast of A four more, and C is touched once per block instead of once per {@code k}. Columns left
 * over take two-vector and one-vector kernels, then a masked one for the last few. B must be in row order
 * {@code [k, n]}; {@link #transpose} puts a transposed one there. Row i of A starts at {@code rows[i]} and is
 * read at the loop's index, which lets the JIT drop the bounds checks on A; {@link #multiplyView} reads A through a
 * table of column offsets instead, for the filter gradient.
 */
final class Gemm {

    private static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;
    private static final int L = S.length();

    /** The JVM's UseAVX: 2 for AVX2, 3 for AVX-512; -1 on a processor that is not x86. */
    private static final int USE_AVX = useAvx();

    private static int useAvx() {
        String useAvx = VmOptions.get("UseAVX");
        return useAvx == null ? -1 : Integer.parseInt(useAvx);
    }

    /**
     * Whether the processor has 32 vector registers (AVX-512; AArch64's vector units) rather than AVX2's 16. With
     * 16, blocks of four rows by four vectors (16 sums, 4 loaded vectors of B) spill, so the blocks there are two
     * vectors wide and six rows high, in {@link #multiplyView} too: six rows let each vector of B loaded feed six
     * fused multiply-adds.
     */
    private static final boolean MANY_REGISTERS = USE_AVX < 0 || USE_AVX >= 3;

    /**
     * Whether a store under a mask costs about what a plain one does: with AVX-512's mask registers it does; AVX2's
     * masked store (vmaskmovps) does not, on AMD's Zen 3 at least, so under AVX2 the floats of a row shorter than a
     * vector are copied one by one. Other processors keep the masks.
     */
    static final boolean CHEAP_MASKED_STORES = USE_AVX < 0 || USE_AVX >= 3;

    /** Columns per panel: 8 vectors; with k = 500 and 16-float vectors a panel of B is 256 KB. */
    private static final int PANEL = 8 * L;

    private Gemm() {}

    static void multiplyRows(
            boolean transA,
            int m,
            int n,
            int k,
            float alpha,
            float[] a,
            int aOff,
            float[] b,
            int bOff,
            float beta,
            float[] c,
            int cOff,
            int rowFrom,
            int rowTo) {
        for (int i = rowFrom; i < rowTo; i++) {
            int ci = cOff + i * n;
            if (beta != 0f && beta != 1f) {
                for (int j = 0; j < n; j++) {
                    c[ci + j] *= beta;
                }
            }
        }
        // Row i of op(A) starts at rows[i]. A transposed A's rows are copied out contiguous first (the kernels read
        // A at the loop's index, see multiplyView), 16 at a time so that each cache line of A read gives 16 floats.
        int[] rows = ROWS.get(m);
        float[] rowsOf = a;
        if (transA) {
            rowsOf = TRANSPOSED_ROWS.get((rowTo - rowFrom) * k);
            for (int i0 = rowFrom; i0 < rowTo; i0 += 16) {
                int i1 = Math.min(rowTo, i0 + 16);
                for (int p = 0; p < k; p++) {
                    for (int i = i0; i < i1; i++) {
                        rowsOf[(i - rowFrom) * k + p] = a[aOff + p * m + i];
                    }
                }
            }
            strided(rows, m, -rowFrom * k, k);
        } else {
            strided(rows, m, aOff, k);
        }
        // Columns in panels, so that the k × PANEL block of B the row blocks run over stays in the core's cache.
        for (int j0 = 0; j0 < n; j0 += PANEL) {
            blocks(
                    rowFrom,
                    rowTo,
                    j0,
                    Math.min(n, j0 + PANEL),
                    k,
                    alpha,
                    rowsOf,
                    rows,
                    b,
                    bOff,
                    n,
                    c,
                    cOff,
                    n,
                    beta == 0f);
        }
    }

    /** The vector shape every kernel here uses. */
    static VectorSpecies<Float> species() {
        return S;
    }

    /** Columns per packed panel: what {@link #multiplyPanel} is given at a time. */
    static int panelWidth() {
        return PANEL;
    }

    /** Each thread's row offsets for {@link #blocks}, and the rows of a transposed A. */
    private static final Scratch<int[]> ROWS = Scratch.ints();

    private static final Scratch<float[]> TRANSPOSED_ROWS = Scratch.floats();

    /** {@code into[i] = start + i·stride} for i below {@code n}: the offsets of a matrix stored with strides. */
    static int[] strided(int[] into, int n, int start, int stride) {
        for (int i = 0; i < n; i++) {
            into[i] = start + i * stride;
        }
        return into;
    }

    /**
     * C[m, n] = A[m, k] · B[k, n], C written without being read, where B is a packed panel (row p at
     * {@code b[p·ldb]}) that its caller just wrote, so it is in cache. A's rows are {@code lda} apart, C's
     * {@code ldc}. Only a store, never {@code +=}, for the reason given at {@link #accumulate}.
     */
    static void multiplyPanel(
            int m,
            int n,
            int k,
            float[] a,
            int aOff,
            int lda,
            float[] b,
            int bOff,
            int ldb,
            float[] c,
            int cOff,
            int ldc) {
        blocks(0, m, 0, n, k, 1f, a, strided(ROWS.get(m), m, aOff, lda), b, bOff, ldb, c, cOff, ldc, true);
    }

    /**
     * C[m, n] = A[m, k] · B[k, n], C written without being read, with A read through offset tables: element
     * (i, p) at {@code a[rows[i] + cols[p]]}. A convolution's im2col matrix is such a view of its input, so the
     * filter gradient reads the input itself instead of a packed copy (a tap per row, a pixel per column). Blocks
     * of {@link #VIEW_ROWS} rows by {@link #viewBlock} columns, the last block of columns one vector narrower where
     * n ends so, or one block of three rows by seven vectors where n is that wide: n must be what
     * {@link #viewColumns} gives and m a multiple of {@link #viewRows}, as the caller pads them.
     *
     * <p>A kernel of its own, because an index read from a table costs a bounds check on every load of A, which
     * the JIT removes where the index is the loop's variable plus a constant (the other kernels here): the check
     * then falls on the filter gradient alone.
     */
    static void multiplyView(
            int m,
            int n,
            int k,
            float[] a,
            int[] rows,
            int[] cols,
            float[] b,
            int bOff,
            int ldb,
            float[] c,
            int cOff,
            int ldc) {
        if (n == SEVEN_VECTORS) {
            for (int i = 0; i < m; i += 3) {
                threeRowsSevenVectorsViewed(k, a, rows, i, cols, b, bOff, ldb, c, cOff + i * ldc, ldc);
            }
            return;
        }
        for (int i = 0; i < m; i += VIEW_ROWS) {
            for (int j = 0; j < n; j += viewBlock()) {
                int width = Math.min(viewBlock(), n - j), b0 = bOff + j, c0 = cOff + i * ldc + j;
                if (MANY_REGISTERS && width == 4 * L) {
                    fourRowsFourVectorsViewed(
                            k, a, rows[i], rows[i + 1], rows[i + 2], rows[i + 3], cols, b, b0, ldb, c, c0, ldc);
                } else if (MANY_REGISTERS) {
                    fourRowsThreeVectorsViewed(
                            k, a, rows[i], rows[i + 1], rows[i + 2], rows[i + 3], cols, b, b0, ldb, c, c0, ldc);
                } else if (width == 2 * L) {
                    sixRowsTwoVectorsViewed(k, a, rows, i, cols, b, b0, ldb, c, c0, ldc);
                } else {
                    sixRowsOneVectorViewed(k, a, rows, i, cols, b, b0, ldb, c, c0, ldc);
                }
            }
        }
    }

    /**
     * {@link #multiplyPanel} in blocks of six rows by four vectors where there are 32 registers (24 sums: a sixth
     * more multiply-adds per value loaded than five rows, half more than four); the rows and columns they leave go to
     * {@link #multiplyPanel}'s blocks, and with 16 registers all of it. For the convolutions of any stride and padding
     * (ResNet's, whose filters have 64 to 512 rows); LeNet's keep {@link #multiplyPanel}, as their sums always were.
     */
    static void multiplyPanelSixRows(
            int m,
            int n,
            int k,
            float[] a,
            int aOff,
            int lda,
            float[] b,
            int bOff,
            int ldb,
            float[] c,
            int cOff,
            int ldc) {
        int[] rows = strided(ROWS.get(m), m, aOff, lda);
        int m6 = MANY_REGISTERS ? m / 6 * 6 : 0, n4 = n / (4 * L) * (4 * L);
        if (n4 == 0) {
            m6 = 0;
        }
        for (int i = 0; i < m6; i += 6) {
            for (int j = 0; j < n4; j += 4 * L) {
                sixRowsFourVectors(k, a, rows, i, b, bOff + j, ldb, c, cOff + i * ldc + j, ldc);
            }
        }
        if (m6 > 0 && n4 < n) {
            blocks(0, m6, n4, n, k, 1f, a, rows, b, bOff, ldb, c, cOff, ldc, true);
        }
        if (m6 < m) {
            blocks(m6, m, 0, n, k, 1f, a, rows, b, bOff, ldb, c, cOff, ldc, true);
        }
    }

    /**
     * Whether {@link #multiplyViewSixRows} runs {@code n} columns: with 32 registers, whole blocks of four vectors.
     * Its {@code m} is then a multiple of six.
     */
    static boolean sixRowViews(int n) {
        return MANY_REGISTERS && n % (4 * L) == 0;
    }

    /**
     * {@link #multiplyView} in blocks of six rows by four vectors, one block of columns at a time (all rows over it,
     * while its columns of B stay in cache): for the filter gradient of convolutions of any stride and padding, where
     * {@link #sixRowViews} says so; m a multiple of six.
     */
    static void multiplyViewSixRows(
            int m,
            int n,
            int k,
            float[] a,
            int[] rows,
            int[] cols,
            float[] b,
            int bOff,
            int ldb,
            float[] c,
            int cOff,
            int ldc) {
        for (int j = 0; j < n; j += 4 * L) {
            for (int i = 0; i < m; i += 6) {
                sixRowsFourVectorsViewed(k, a, rows, i, cols, b, bOff + j, ldb, c, cOff + i * ldc + j, ldc);
            }
        }
    }

    /**
     * C[6 rows from row i, 4L columns at c0] = A[those rows, :] · B[:, 4L columns at b0], stored: 24 sums, 4 loaded
     * vectors of B and 1 broadcast, 29 of the 32 registers. Stored by intoArray itself, not through {@link #storeRow}:
     * this method is large enough that the JIT may not inline a helper, and a vector handed to a call it has not
     * inlined is boxed, which made the whole kernel a hundred times slower.
     */
    private static void sixRowsFourVectors(
            int k, float[] a, int[] rows, int i, float[] b, int b0, int ldb, float[] c, int c0, int ldc) {
        int a0 = rows[i], a1 = rows[i + 1], a2 = rows[i + 2], a3 = rows[i + 3], a4 = rows[i + 4], a5 = rows[i + 5];
        FloatVector c00 = FloatVector.zero(S), c01 = FloatVector.zero(S);
        FloatVector c02 = FloatVector.zero(S), c03 = FloatVector.zero(S);
        FloatVector c10 = FloatVector.zero(S), c11 = FloatVector.zero(S);
        FloatVector c12 = FloatVector.zero(S), c13 = FloatVector.zero(S);
        FloatVector c20 = FloatVector.zero(S), c21 = FloatVector.zero(S);
        FloatVector c22 = FloatVector.zero(S), c23 = FloatVector.zero(S);
        FloatVector c30 = FloatVector.zero(S), c31 = FloatVector.zero(S);
        FloatVector c32 = FloatVector.zero(S), c33 = FloatVector.zero(S);
        FloatVector c40 = FloatVector.zero(S), c41 = FloatVector.zero(S);
        FloatVector c42 = FloatVector.zero(S), c43 = FloatVector.zero(S);
        FloatVector c50 = FloatVector.zero(S), c51 = FloatVector.zero(S);
        FloatVector c52 = FloatVector.zero(S), c53 = FloatVector.zero(S);
        for (int p = 0; p < k; p++) {
            int bp = b0 + p * ldb;
            FloatVector v0 = FloatVector.fromArray(S, b, bp);
            FloatVector v1 = FloatVector.fromArray(S, b, bp + L);
            FloatVector v2 = FloatVector.fromArray(S, b, bp + 2 * L);
            FloatVector v3 = FloatVector.fromArray(S, b, bp + 3 * L);
            FloatVector x = FloatVector.broadcast(S, a[a0 + p]);
            c00 = v0.fma(x, c00);
            c01 = v1.fma(x, c01);
            c02 = v2.fma(x, c02);
            c03 = v3.fma(x, c03);
            x = FloatVector.broadcast(S, a[a1 + p]);
            c10 = v0.fma(x, c10);
            c11 = v1.fma(x, c11);
            c12 = v2.fma(x, c12);
            c13 = v3.fma(x, c13);
            x = FloatVector.broadcast(S, a[a2 + p]);
            c20 = v0.fma(x, c20);
            c21 = v1.fma(x, c21);
            c22 = v2.fma(x, c22);
            c23 = v3.fma(x, c23);
            x = FloatVector.broadcast(S, a[a3 + p]);
            c30 = v0.fma(x, c30);
            c31 = v1.fma(x, c31);
            c32 = v2.fma(x, c32);
            c33 = v3.fma(x, c33);
            x = FloatVector.broadcast(S, a[a4 + p]);
            c40 = v0.fma(x, c40);
            c41 = v1.fma(x, c41);
            c42 = v2.fma(x, c42);
            c43 = v3.fma(x, c43);
            x = FloatVector.broadcast(S, a[a5 + p]);
            c50 = v0.fma(x, c50);
            c51 = v1.fma(x, c51);
            c52 = v2.fma(x, c52);
            c53 = v3.fma(x, c53);
        }
        c00.intoArray(c, c0);
        c01.intoArray(c, c0 + L);
        c02.intoArray(c, c0 + 2 * L);
        c03.intoArray(c, c0 + 3 * L);
        c10.intoArray(c, c0 + ldc);
        c11.intoArray(c, c0 + ldc + L);
        c12.intoArray(c, c0 + ldc + 2 * L);
        c13.intoArray(c, c0 + ldc + 3 * L);
        c20.intoArray(c, c0 + 2 * ldc);
        c21.intoArray(c, c0 + 2 * ldc + L);
        c22.intoArray(c, c0 + 2 * ldc + 2 * L);
        c23.intoArray(c, c0 + 2 * ldc + 3 * L);
        c30.intoArray(c, c0 + 3 * ldc);
        c31.intoArray(c, c0 + 3 * ldc + L);
        c32.intoArray(c, c0 + 3 * ldc + 2 * L);
        c33.intoArray(c, c0 + 3 * ldc + 3 * L);
        c40.intoArray(c, c0 + 4 * ldc);
        c41.intoArray(c, c0 + 4 * ldc + L);
        c42.intoArray(c, c0 + 4 * ldc + 2 * L);
        c43.intoArray(c, c0 + 4 * ldc + 3 * L);
        c50.intoArray(c, c0 + 5 * ldc);
        c51.intoArray(c, c0 + 5 * ldc + L);
        c52.intoArray(c, c0 + 5 * ldc + 2 * L);
        c53.intoArray(c, c0 + 5 * ldc + 3 * L);
    }

    /** {@link #sixRowsFourVectors} with A's column p at offset {@code cols[p]} of each row. */
    private static void sixRowsFourVectorsViewed(
            int k, float[] a, int[] rows, int i, int[] cols, float[] b, int b0, int ldb, float[] c, int c0, int ldc) {
        int a0 = rows[i], a1 = rows[i + 1], a2 = rows[i + 2], a3 = rows[i + 3], a4 = rows[i + 4], a5 = rows[i + 5];
        FloatVector c00 = FloatVector.zero(S), c01 = FloatVector.zero(S);
        FloatVector c02 = FloatVector.zero(S), c03 = FloatVector.zero(S);
        FloatVector c10 = FloatVector.zero(S), c11 = FloatVector.zero(S);
        FloatVector c12 = FloatVector.zero(S), c13 = FloatVector.zero(S);
        FloatVector c20 = FloatVector.zero(S), c21 = FloatVector.zero(S);
        FloatVector c22 = FloatVector.zero(S), c23 = FloatVector.zero(S);
        FloatVector c30 = FloatVector.zero(S), c31 = FloatVector.zero(S);
        FloatVector c32 = FloatVector.zero(S), c33 = FloatVector.zero(S);
        FloatVector c40 = FloatVector.zero(S), c41 = FloatVector.zero(S);
        FloatVector c42 = FloatVector.zero(S), c43 = FloatVector.zero(S);
        FloatVector c50 = FloatVector.zero(S), c51 = FloatVector.zero(S);
        FloatVector c52 = FloatVector.zero(S), c53 = FloatVector.zero(S);
        for (int p = 0; p < k; p++) {
            int bp = b0 + p * ldb, ap = cols[p];
            FloatVector v0 = FloatVector.fromArray(S, b, bp);
            FloatVector v1 = FloatVector.fromArray(S, b, bp + L);
            FloatVector v2 = FloatVector.fromArray(S, b, bp + 2 * L);
            FloatVector v3 = FloatVector.fromArray(S, b, bp + 3 * L);
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
            x = FloatVector.broadcast(S, a[a4 + ap]);
            c40 = v0.fma(x, c40);
            c41 = v1.fma(x, c41);
            c42 = v2.fma(x, c42);
            c43 = v3.fma(x, c43);
            x = FloatVector.broadcast(S, a[a5 + ap]);
            c50 = v0.fma(x, c50);
            c51 = v1.fma(x, c51);
            c52 = v2.fma(x, c52);
            c53 = v3.fma(x, c53);
        }
        c00.intoArray(c, c0);
        c01.intoArray(c, c0 + L);
        c02.intoArray(c, c0 + 2 * L);
        c03.intoArray(c, c0 + 3 * L);
        c10.intoArray(c, c0 + ldc);
        c11.intoArray(c, c0 + ldc + L);
        c12.intoArray(c, c0 + ldc + 2 * L);
        c13.intoArray(c, c0 + ldc + 3 * L);
        c20.intoArray(c, c0 + 2 * ldc);
        c21.intoArray(c, c0 + 2 * ldc + L);
        c22.intoArray(c, c0 + 2 * ldc + 2 * L);
        c23.intoArray(c, c0 + 2 * ldc + 3 * L);
        c30.intoArray(c, c0 + 3 * ldc);
        c31.intoArray(c, c0 + 3 * ldc + L);
        c32.intoArray(c, c0 + 3 * ldc + 2 * L);
        c33.intoArray(c, c0 + 3 * ldc + 3 * L);
        c40.intoArray(c, c0 + 4 * ldc);
        c41.intoArray(c, c0 + 4 * ldc + L);
        c42.intoArray(c, c0 + 4 * ldc + 2 * L);
        c43.intoArray(c, c0 + 4 * ldc + 3 * L);
        c50.intoArray(c, c0 + 5 * ldc);
        c51.intoArray(c, c0 + 5 * ldc + L);
        c52.intoArray(c, c0 + 5 * ldc + 2 * L);
        c53.intoArray(c, c0 + 5 * ldc + 3 * L);
    }

    /**
     * {@code n} rounded up to columns that {@link #multiplyView} runs: blocks of {@link #viewBlock}, the last of
     * which may be a vector narrower. conv2's 50 output channels: 56 columns with 256-bit vectors (4 + 3 vectors of
     * 8, or 2 + 2 + 2 + 1 with AVX2's 16 registers), where whole blocks would be 64 and an eighth more multiplies;
     * 64 with 512-bit ones.
     */
    static int viewColumns(int n) {
        int before = (n - 1) / viewBlock() * viewBlock(), rest = n - before;
        return before + (rest <= viewBlock() - L ? viewBlock() - L : viewBlock());
    }

    /** Rows of {@link #multiplyView}'s blocks other than three rows by seven vectors. */
    private static final int VIEW_ROWS = MANY_REGISTERS ? 4 : 6;

    /**
     * Columns that {@link #multiplyView} runs as one block of three rows by seven vectors (21 sums, 7 loaded
     * vectors of B, 1 broadcast; with 32 registers): conv2's 50 channels at 256 bits, 56 columns, which four-row
     * blocks run as 4 + 3 vectors, loading A's column offset and four scalars of A twice per step.
     */
    private static final int SEVEN_VECTORS = MANY_REGISTERS ? 7 * L : -1;

    /** Rows of one block of {@link #multiplyView} for {@code n} columns (from {@link #viewColumns}): m's multiple. */
    static int viewRows(int n) {
        return n == SEVEN_VECTORS ? 3 : VIEW_ROWS;
    }

    /** Columns of one whole block of {@link #multiplyView}. */
    static int viewBlock() {
        return (MANY_REGISTERS ? 4 : 2) * L;
    }

    /** {@link #fourRowsFourVectors} with A's column p at offset {@code cols[p]} of each row, storing. */
    private static void fourRowsFourVectorsViewed(
            int k,
            float[] a,
            int a0,
            int a1,
            int a2,
            int a3,
            int[] cols,
            float[] b,
            int b0,
            int ldb,
            float[] c,
            int c0,
            int ldc) {
        FloatVector c00 = FloatVector.zero(S), c01 = FloatVector.zero(S);
        FloatVector c02 = FloatVector.zero(S), c03 = FloatVector.zero(S);
        FloatVector c10 = FloatVector.zero(S), c11 = FloatVector.zero(S);
        FloatVector c12 = FloatVector.zero(S), c13 = FloatVector.zero(S);
        FloatVector c20 = FloatVector.zero(S), c21 = FloatVector.zero(S);
        FloatVector c22 = FloatVector.zero(S), c23 = FloatVector.zero(S);
        FloatVector c30 = FloatVector.zero(S), c31 = FloatVector.zero(S);
        FloatVector c32 = FloatVector.zero(S), c33 = FloatVector.zero(S);
        for (int p = 0; p < k; p++) {
            int bp = b0 + p * ldb, ap = cols[p];
            FloatVector v0 = FloatVector.fromArray(S, b, bp);
            FloatVector v1 = FloatVector.fromArray(S, b, bp + L);
            FloatVector v2 = FloatVector.fromArray(S, b, bp + 2 * L);
            FloatVector v3 = FloatVector.fromArray(S, b, bp + 3 * L);
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
        storeRow(c, c0, c00, c01, c02, c03);
        storeRow(c, c0 + ldc, c10, c11, c12, c13);
        storeRow(c, c0 + 2 * ldc, c20, c21, c22, c23);
        storeRow(c, c0 + 3 * ldc, c30, c31, c32, c33);
    }

    /** {@link #fourRowsFourVectorsViewed} one vector narrower: the last block of columns. */
    private static void fourRowsThreeVectorsViewed(
            int k,
            float[] a,
            int a0,
            int a1,
            int a2,
            int a3,
            int[] cols,
            float[] b,
            int b0,
            int ldb,
            float[] c,
            int c0,
            int ldc) {
        FloatVector c00 = FloatVector.zero(S), c01 = FloatVector.zero(S), c02 = FloatVector.zero(S);
        FloatVector c10 = FloatVector.zero(S), c11 = FloatVector.zero(S), c12 = FloatVector.zero(S);
        FloatVector c20 = FloatVector.zero(S), c21 = FloatVector.zero(S), c22 = FloatVector.zero(S);
        FloatVector c30 = FloatVector.zero(S), c31 = FloatVector.zero(S), c32 = FloatVector.zero(S);
        for (int p = 0; p < k; p++) {
            int bp = b0 + p * ldb, ap = cols[p];
            FloatVector v0 = FloatVector.fromArray(S, b, bp);
            FloatVector v1 = FloatVector.fromArray(S, b, bp + L);
            FloatVector v2 = FloatVector.fromArray(S, b, bp + 2 * L);
            FloatVector x = FloatVector.broadcast(S, a[a0 + ap]);
            c00 = v0.fma(x, c00);
            c01 = v1.fma(x, c01);
            c02 = v2.fma(x, c02);
            x = FloatVector.broadcast(S, a[a1 + ap]);
            c10 = v0.fma(x, c10);
            c11 = v1.fma(x, c11);
            c12 = v2.fma(x, c12);
            x = FloatVector.broadcast(S, a[a2 + ap]);
            c20 = v0.fma(x, c20);
            c21 = v1.fma(x, c21);
            c22 = v2.fma(x, c22);
            x = FloatVector.broadcast(S, a[a3 + ap]);
            c30 = v0.fma(x, c30);
            c31 = v1.fma(x, c31);
            c32 = v2.fma(x, c32);
        }
        c00.intoArray(c, c0);
        c01.intoArray(c, c0 + L);
        c02.intoArray(c, c0 + 2 * L);
        c10.intoArray(c, c0 + ldc);
        c11.intoArray(c, c0 + ldc + L);
        c12.intoArray(c, c0 + ldc + 2 * L);
        c20.intoArray(c, c0 + 2 * ldc);
        c21.intoArray(c, c0 + 2 * ldc + L);
        c22.intoArray(c, c0 + 2 * ldc + 2 * L);
        c30.intoArray(c, c0 + 3 * ldc);
        c31.intoArray(c, c0 + 3 * ldc + L);
        c32.intoArray(c, c0 + 3 * ldc + 2 * L);
    }

    /** C[3 rows, 7L columns at c0] = A[rows i to i + 2, column p at cols[p]] · B[:, 7L columns at b0], storing. */
    private static void threeRowsSevenVectorsViewed(
            int k, float[] a, int[] rows, int i, int[] cols, float[] b, int b0, int ldb, float[] c, int c0, int ldc) {
        int a0 = rows[i], a1 = rows[i + 1], a2 = rows[i + 2];
        FloatVector c00 = FloatVector.zero(S),
                c01 = FloatVector.zero(S),
                c02 = FloatVector.zero(S),
                c03 = FloatVector.zero(S),
                c04 = FloatVector.zero(S),
                c05 = FloatVector.zero(S),
                c06 = FloatVector.zero(S);
        FloatVector c10 = FloatVector.zero(S),
                c11 = FloatVector.zero(S),
                c12 = FloatVector.zero(S),
                c13 = FloatVector.zero(S),
                c14 = FloatVector.zero(S),
                c15 = FloatVector.zero(S),
                c16 = FloatVector.zero(S);
        FloatVector c20 = FloatVector.zero(S),
                c21 = FloatVector.zero(S),
                c22 = FloatVector.zero(S),
                c23 = FloatVector.zero(S),
                c24 = FloatVector.zero(S),
                c25 = FloatVector.zero(S),
                c26 = FloatVector.zero(S);
        for (int p = 0; p < k; p++) {
            int bp = b0 + p * ldb, ap = cols[p];
            FloatVector v0 = FloatVector.fromArray(S, b, bp);
            FloatVector v1 = FloatVector.fromArray(S, b, bp + L);
            FloatVector v2 = FloatVector.fromArray(S, b, bp + 2 * L);
            FloatVector v3 = FloatVector.fromArray(S, b, bp + 3 * L);
            FloatVector v4 = FloatVector.fromArray(S, b, bp + 4 * L);
            FloatVector v5 = FloatVector.fromArray(S, b, bp + 5 * L);
            FloatVector v6 = FloatVector.fromArray(S, b, bp + 6 * L);
            FloatVector x = FloatVector.broadcast(S, a[a0 + ap]);
            c00 = v0.fma(x, c00);
            c01 = v1.fma(x, c01);
            c02 = v2.fma(x, c02);
            c03 = v3.fma(x, c03);
            c04 = v4.fma(x, c04);
            c05 = v5.fma(x, c05);
            c06 = v6.fma(x, c06);
            x = FloatVector.broadcast(S, a[a1 + ap]);
            c10 = v0.fma(x, c10);
            c11 = v1.fma(x, c11);
            c12 = v2.fma(x, c12);
            c13 = v3.fma(x, c13);
            c14 = v4.fma(x, c14);
            c15 = v5.fma(x, c15);
            c16 = v6.fma(x, c16);
            x = FloatVector.broadcast(S, a[a2 + ap]);
            c20 = v0.fma(x, c20);
            c21 = v1.fma(x, c21);
            c22 = v2.fma(x, c22);
            c23 = v3.fma(x, c23);
            c24 = v4.fma(x, c24);
            c25 = v5.fma(x, c25);
            c26 = v6.fma(x, c26);
        }
        c00.intoArray(c, c0);
        c01.intoArray(c, c0 + L);
        c02.intoArray(c, c0 + 2 * L);
        c03.intoArray(c, c0 + 3 * L);
        c04.intoArray(c, c0 + 4 * L);
        c05.intoArray(c, c0 + 5 * L);
        c06.intoArray(c, c0 + 6 * L);
        c10.intoArray(c, c0 + ldc);
        c11.intoArray(c, c0 + ldc + L);
        c12.intoArray(c, c0 + ldc + 2 * L);
        c13.intoArray(c, c0 + ldc + 3 * L);
        c14.intoArray(c, c0 + ldc + 4 * L);
        c15.intoArray(c, c0 + ldc + 5 * L);
        c16.intoArray(c, c0 + ldc + 6 * L);
        c20.intoArray(c, c0 + 2 * ldc);
        c21.intoArray(c, c0 + 2 * ldc + L);
        c22.intoArray(c, c0 + 2 * ldc + 2 * L);
        c23.intoArray(c, c0 + 2 * ldc + 3 * L);
        c24.intoArray(c, c0 + 2 * ldc + 4 * L);
        c25.intoArray(c, c0 + 2 * ldc + 5 * L);
        c26.intoArray(c, c0 + 2 * ldc + 6 * L);
    }

    private static void storeRow(float[] c, int at, FloatVector v0, FloatVector v1, FloatVector v2, FloatVector v3) {
        v0.intoArray(c, at);
        v1.intoArray(c, at + L);
        v2.intoArray(c, at + 2 * L);
        v3.intoArray(c, at + 3 * L);
    }

    /** {@link #sixRowsTwoVectors} with A's column p at offset {@code cols[p]} of each row, storing. */
    private static void sixRowsTwoVectorsViewed(
            int k, float[] a, int[] rows, int i, int[] cols, float[] b, int b0, int ldb, float[] c, int c0, int ldc) {
        int a0 = rows[i], a1 = rows[i + 1], a2 = rows[i + 2], a3 = rows[i + 3], a4 = rows[i + 4], a5 = rows[i + 5];
        FloatVector c00 = FloatVector.zero(S), c01 = FloatVector.zero(S);
        FloatVector c10 = FloatVector.zero(S), c11 = FloatVector.zero(S);
        FloatVector c20 = FloatVector.zero(S), c21 = FloatVector.zero(S);
        FloatVector c30 = FloatVector.zero(S), c31 = FloatVector.zero(S);
        FloatVector c40 = FloatVector.zero(S), c41 = FloatVector.zero(S);
        FloatVector c50 = FloatVector.zero(S), c51 = FloatVector.zero(S);
        for (int p = 0; p < k; p++) {
            int bp = b0 + p * ldb, ap = cols[p];
            FloatVector v0 = FloatVector.fromArray(S, b, bp);
            FloatVector v1 = FloatVector.fromArray(S, b, bp + L);
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
            x = FloatVector.broadcast(S, a[a4 + ap]);
            c40 = v0.fma(x, c40);
            c41 = v1.fma(x, c41);
            x = FloatVector.broadcast(S, a[a5 + ap]);
            c50 = v0.fma(x, c50);
            c51 = v1.fma(x, c51);
        }
        c00.intoArray(c, c0);
        c01.intoArray(c, c0 + L);
        c10.intoArray(c, c0 + ldc);
        c11.intoArray(c, c0 + ldc + L);
        c20.intoArray(c, c0 + 2 * ldc);
        c21.intoArray(c, c0 + 2 * ldc + L);
        c30.intoArray(c, c0 + 3 * ldc);
        c31.intoArray(c, c0 + 3 * ldc + L);
        c40.intoArray(c, c0 + 4 * ldc);
        c41.intoArray(c, c0 + 4 * ldc + L);
        c50.intoArray(c, c0 + 5 * ldc);
        c51.intoArray(c, c0 + 5 * ldc + L);
    }

    /** {@link #sixRowsTwoVectorsViewed} one vector narrower: the last block of columns. */
    private static void sixRowsOneVectorViewed(
            int k, float[] a, int[] rows, int i, int[] cols, float[] b, int b0, int ldb, float[] c, int c0, int ldc) {
        int a0 = rows[i], a1 = rows[i + 1], a2 = rows[i + 2], a3 = rows[i + 3], a4 = rows[i + 4], a5 = rows[i + 5];
        FloatVector c0v = FloatVector.zero(S), c1v = FloatVector.zero(S), c2v = FloatVector.zero(S);
        FloatVector c3v = FloatVector.zero(S), c4v = FloatVector.zero(S), c5v = FloatVector.zero(S);
        for (int p = 0; p < k; p++) {
            int ap = cols[p];
            FloatVector v = FloatVector.fromArray(S, b, b0 + p * ldb);
            c0v = v.fma(FloatVector.broadcast(S, a[a0 + ap]), c0v);
            c1v = v.fma(FloatVector.broadcast(S, a[a1 + ap]), c1v);
            c2v = v.fma(FloatVector.broadcast(S, a[a2 + ap]), c2v);
            c3v = v.fma(FloatVector.broadcast(S, a[a3 + ap]), c3v);
            c4v = v.fma(FloatVector.broadcast(S, a[a4 + ap]), c4v);
            c5v = v.fma(FloatVector.broadcast(S, a[a5 + ap]), c5v);
        }
        c0v.intoArray(c, c0);
        c1v.intoArray(c, c0 + ldc);
        c2v.intoArray(c, c0 + 2 * ldc);
        c3v.intoArray(c, c0 + 3 * ldc);
        c4v.intoArray(c, c0 + 4 * ldc);
        c5v.intoArray(c, c0 + 5 * ldc);
    }

    /**
     * C rows {@code [rowFrom, rowTo)}, columns {@code [j0, j1)}: blocks of four rows by four (with 16 registers,
     * six rows by two first; with 32, five rows by four for the rows four-row blocks would leave), two and one
     * vectors, then a part of one under a mask; rows left over two at a time, then one, likewise.
     */
    private static void blocks(
            int rowFrom,
            int rowTo,
            int j0,
            int j1,
            int k,
            float alpha,
            float[] a,
            int[] rows,
            float[] b,
            int bOff,
            int ldb,
            float[] c,
            int cOff,
            int ldc,
            boolean store) {
        int i = rowFrom;
        if (!MANY_REGISTERS && j1 - j0 >= 2 * L) {
            // 16 registers: six rows by two vectors (12 sums, 2 loaded vectors of B, 1 broadcast)
            int jEnd = j0 + (j1 - j0) / (2 * L) * (2 * L);
            for (; i + 6 <= rowTo; i += 6) {
                for (int j = j0; j < jEnd; j += 2 * L) {
                    sixRowsTwoVectors(k, alpha, a, rows, i, b, bOff + j, ldb, c, cOff + i * ldc + j, ldc, store);
                }
            }
            if (jEnd < j1) {
                blocks(rowFrom, i, jEnd, j1, k, alpha, a, rows, b, bOff, ldb, c, cOff, ldc, store);
            }
        }
        if (MANY_REGISTERS && j1 - j0 >= 4 * L) {
            // 32 registers: each block of five rows by four vectors (20 sums, 4 loaded vectors of B, 1 broadcast)
            // takes one of the rows that four-row blocks would leave over to slower kernels (conv2's 50 channels: 2)
            int fives = Math.min((rowTo - i) % 4, (rowTo - i) / 5);
            int iEnd = i + 5 * fives;
            int jEnd = j0 + (j1 - j0) / (4 * L) * (4 * L);
            for (; i < iEnd; i += 5) {
                for (int j = j0; j < jEnd; j += 4 * L) {
                    fiveRowsFourVectors(k, alpha, a, rows, i, b, bOff + j, ldb, c, cOff + i * ldc + j, ldc, store);
                }
            }
            if (jEnd < j1) {
                blocks(rowFrom, i, jEnd, j1, k, alpha, a, rows, b, bOff, ldb, c, cOff, ldc, store);
            }
        }
        for (; i + 4 <= rowTo; i += 4) {
            int a0 = rows[i], a1 = rows[i + 1], a2 = rows[i + 2], a3 = rows[i + 3], c0 = cOff + i * ldc;
            int j = j0;
            for (; MANY_REGISTERS && j + 4 * L <= j1; j += 4 * L) {
                fourRowsFourVectors(k, alpha, a, a0, a1, a2, a3, b, bOff + j, ldb, c, c0 + j, ldc, store);
            }
            for (; j + 2 * L <= j1; j += 2 * L) {
                fourRowsTwoVectors(k, alpha, a, a0, a1, a2, a3, b, bOff + j, ldb, c, c0 + j, ldc, store);
            }
            for (; j + L <= j1; j += L) {
                fourRowsOneVector(k, alpha, a, a0, a1, a2, a3, b, bOff + j, ldb, c, c0 + j, ldc, store);
            }
            if (j < j1) {
                fourRowsPartVector(
                        k, alpha, a, a0, a1, a2, a3, b, bOff + j, ldb, c, c0 + j, ldc, store, S.indexInRange(j, j1));
            }
        }
        if (i + 2 <= rowTo) {
            // Two rows left (conv2's 50 output channels leave two): each vector of B loaded feeds both
            int a0 = rows[i], a1 = rows[i + 1], c0 = cOff + i * ldc;
            int j = j0;
            for (; j + 4 * L <= j1; j += 4 * L) {
                twoRowsFourVectors(k, alpha, a, a0, a1, b, bOff + j, ldb, c, c0 + j, ldc, store);
            }
            for (; j < j1; j += L) {
                for (int r = 0; r < 2; r++) {
                    if (j + L <= j1) {
                        oneRowOneVector(k, alpha, a, rows[i + r], b, bOff + j, ldb, c, c0 + r * ldc + j, store);
                    } else {
                        oneRowPartVector(
                                k,
                                alpha,
                                a,
                                rows[i + r],
                                b,
                                bOff + j,
                                ldb,
                                c,
                                c0 + r * ldc + j,
                                store,
                                S.indexInRange(j, j1));
                    }
                }
            }
            i += 2;
        }
        for (; i < rowTo; i++) {
            int a0 = rows[i], c0 = cOff + i * ldc;
            int j = j0;
            for (; j + 4 * L <= j1; j += 4 * L) {
                oneRowFourVectors(k, alpha, a, a0, b, bOff + j, ldb, c, c0 + j, store);
            }
            for (; j + L <= j1; j += L) {
                oneRowOneVector(k, alpha, a, a0, b, bOff + j, ldb, c, c0 + j, store);
            }
            if (j < j1) {
                oneRowPartVector(k, alpha, a, a0, b, bOff + j, ldb, c, c0 + j, store, S.indexInRange(j, j1));
            }
        }
    }

    /** C[5 rows from row i, 4L columns at c0] ← alpha · A[those rows, :] · B[:, 4L columns at b0]: 20 sums. */
    private static void fiveRowsFourVectors(
            int k,
            float alpha,
            float[] a,
            int[] rows,
            int i,
            float[] b,
            int b0,
            int ldb,
            float[] c,
            int c0,
            int ldc,
            boolean store) {
        int a0 = rows[i], a1 = rows[i + 1], a2 = rows[i + 2], a3 = rows[i + 3], a4 = rows[i + 4];
        FloatVector c00 = FloatVector.zero(S), c01 = FloatVector.zero(S);
        FloatVector c02 = FloatVector.zero(S), c03 = FloatVector.zero(S);
        FloatVector c10 = FloatVector.zero(S), c11 = FloatVector.zero(S);
        FloatVector c12 = FloatVector.zero(S), c13 = FloatVector.zero(S);
        FloatVector c20 = FloatVector.zero(S), c21 = FloatVector.zero(S);
        FloatVector c22 = FloatVector.zero(S), c23 = FloatVector.zero(S);
        FloatVector c30 = FloatVector.zero(S), c31 = FloatVector.zero(S);
        FloatVector c32 = FloatVector.zero(S), c33 = FloatVector.zero(S);
        FloatVector c40 = FloatVector.zero(S), c41 = FloatVector.zero(S);
        FloatVector c42 = FloatVector.zero(S), c43 = FloatVector.zero(S);
        for (int p = 0; p < k; p++) {
            int bp = b0 + p * ldb;
            FloatVector v0 = FloatVector.fromArray(S, b, bp);
            FloatVector v1 = FloatVector.fromArray(S, b, bp + L);
            FloatVector v2 = FloatVector.fromArray(S, b, bp + 2 * L);
            FloatVector v3 = FloatVector.fromArray(S, b, bp + 3 * L);
            FloatVector x = FloatVector.broadcast(S, a[a0 + p]);
            c00 = v0.fma(x, c00);
            c01 = v1.fma(x, c01);
            c02 = v2.fma(x, c02);
            c03 = v3.fma(x, c03);
            x = FloatVector.broadcast(S, a[a1 + p]);
            c10 = v0.fma(x, c10);
            c11 = v1.fma(x, c11);
            c12 = v2.fma(x, c12);
            c13 = v3.fma(x, c13);
            x = FloatVector.broadcast(S, a[a2 + p]);
            c20 = v0.fma(x, c20);
            c21 = v1.fma(x, c21);
            c22 = v2.fma(x, c22);
            c23 = v3.fma(x, c23);
            x = FloatVector.broadcast(S, a[a3 + p]);
            c30 = v0.fma(x, c30);
            c31 = v1.fma(x, c31);
            c32 = v2.fma(x, c32);
            c33 = v3.fma(x, c33);
            x = FloatVector.broadcast(S, a[a4 + p]);
            c40 = v0.fma(x, c40);
            c41 = v1.fma(x, c41);
            c42 = v2.fma(x, c42);
            c43 = v3.fma(x, c43);
        }
        accumulate(c, c0, alpha, c00, store);
        accumulate(c, c0 + L, alpha, c01, store);
        accumulate(c, c0 + 2 * L, alpha, c02, store);
        accumulate(c, c0 + 3 * L, alpha, c03, store);
        accumulate(c, c0 + ldc, alpha, c10, store);
        accumulate(c, c0 + ldc + L, alpha, c11, store);
        accumulate(c, c0 + ldc + 2 * L, alpha, c12, store);
        accumulate(c, c0 + ldc + 3 * L, alpha, c13, store);
        accumulate(c, c0 + 2 * ldc, alpha, c20, store);
        accumulate(c, c0 + 2 * ldc + L, alpha, c21, store);
        accumulate(c, c0 + 2 * ldc + 2 * L, alpha, c22, store);
        accumulate(c, c0 + 2 * ldc + 3 * L, alpha, c23, store);
        accumulate(c, c0 + 3 * ldc, alpha, c30, store);
        accumulate(c, c0 + 3 * ldc + L, alpha, c31, store);
        accumulate(c, c0 + 3 * ldc + 2 * L, alpha, c32, store);
        accumulate(c, c0 + 3 * ldc + 3 * L, alpha, c33, store);
        accumulate(c, c0 + 4 * ldc, alpha, c40, store);
        accumulate(c, c0 + 4 * ldc + L, alpha, c41, store);
        accumulate(c, c0 + 4 * ldc + 2 * L, alpha, c42, store);
        accumulate(c, c0 + 4 * ldc + 3 * L, alpha, c43, store);
    }

    /**
     * C[4 rows, 4L columns at c0] ← alpha · A[4 rows at a0, :] · B[:, 4L columns at b0]: sixteen accumulators,
     * and per step of k four loads of B and four broadcasts of A feed sixteen fused multiply-adds.
     */
    private static void fourRowsFourVectors(
            int k,
            float alpha,
            float[] a,
            int a0,
            int a1,
            int a2,
            int a3,
            float[] b,
            int b0,
            int ldb,
            float[] c,
            int c0,
            int ldc,
            boolean store) {
        FloatVector c00 = FloatVector.zero(S),
                c01 = FloatVector.zero(S),
                c02 = FloatVector.zero(S),
                c03 = FloatVector.zero(S);
        FloatVector c10 = FloatVector.zero(S),
                c11 = FloatVector.zero(S),
                c12 = FloatVector.zero(S),
                c13 = FloatVector.zero(S);
        FloatVector c20 = FloatVector.zero(S),
                c21 = FloatVector.zero(S),
                c22 = FloatVector.zero(S),
                c23 = FloatVector.zero(S);
        FloatVector c30 = FloatVector.zero(S),
                c31 = FloatVector.zero(S),
                c32 = FloatVector.zero(S),
                c33 = FloatVector.zero(S);
        for (int p = 0; p < k; p++) {
            int bp = b0 + p * ldb;
            FloatVector v0 = FloatVector.fromArray(S, b, bp);
            FloatVector v1 = FloatVector.fromArray(S, b, bp + L);
            FloatVector v2 = FloatVector.fromArray(S, b, bp + 2 * L);
            FloatVector v3 = FloatVector.fromArray(S, b, bp + 3 * L);
            FloatVector x = FloatVector.broadcast(S, a[a0 + p]);
            c00 = v0.fma(x, c00);
            c01 = v1.fma(x, c01);
            c02 = v2.fma(x, c02);
            c03 = v3.fma(x, c03);
            x = FloatVector.broadcast(S, a[a1 + p]);
            c10 = v0.fma(x, c10);
            c11 = v1.fma(x, c11);
            c12 = v2.fma(x, c12);
            c13 = v3.fma(x, c13);
            x = FloatVector.broadcast(S, a[a2 + p]);
            c20 = v0.fma(x, c20);
            c21 = v1.fma(x, c21);
            c22 = v2.fma(x, c22);
            c23 = v3.fma(x, c23);
            x = FloatVector.broadcast(S, a[a3 + p]);
            c30 = v0.fma(x, c30);
            c31 = v1.fma(x, c31);
            c32 = v2.fma(x, c32);
            c33 = v3.fma(x, c33);
        }
        accumulate(c, c0, alpha, c00, store);
        accumulate(c, c0 + L, alpha, c01, store);
        accumulate(c, c0 + 2 * L, alpha, c02, store);
        accumulate(c, c0 + 3 * L, alpha, c03, store);
        accumulate(c, c0 + ldc, alpha, c10, store);
        accumulate(c, c0 + ldc + L, alpha, c11, store);
        accumulate(c, c0 + ldc + 2 * L, alpha, c12, store);
        accumulate(c, c0 + ldc + 3 * L, alpha, c13, store);
        accumulate(c, c0 + 2 * ldc, alpha, c20, store);
        accumulate(c, c0 + 2 * ldc + L, alpha, c21, store);
        accumulate(c, c0 + 2 * ldc + 2 * L, alpha, c22, store);
        accumulate(c, c0 + 2 * ldc + 3 * L, alpha, c23, store);
        accumulate(c, c0 + 3 * ldc, alpha, c30, store);
        accumulate(c, c0 + 3 * ldc + L, alpha, c31, store);
        accumulate(c, c0 + 3 * ldc + 2 * L, alpha, c32, store);
        accumulate(c, c0 + 3 * ldc + 3 * L, alpha, c33, store);
    }

    /**
     * C[6 rows from row i, 2L columns at c0] ← alpha · A[those rows] · B[:, 2L columns at b0]: the widest block
     * that 16 vector registers hold, each vector of B loaded feeding six fused multiply-adds.
     */
    private static void sixRowsTwoVectors(
            int k,
            float alpha,
            float[] a,
            int[] rows,
            int i,
            float[] b,
            int b0,
            int ldb,
            float[] c,
            int c0,
            int ldc,
            boolean store) {
        int a0 = rows[i], a1 = rows[i + 1], a2 = rows[i + 2], a3 = rows[i + 3], a4 = rows[i + 4], a5 = rows[i + 5];
        FloatVector c00 = FloatVector.zero(S), c01 = FloatVector.zero(S);
        FloatVector c10 = FloatVector.zero(S), c11 = FloatVector.zero(S);
        FloatVector c20 = FloatVector.zero(S), c21 = FloatVector.zero(S);
        FloatVector c30 = FloatVector.zero(S), c31 = FloatVector.zero(S);
        FloatVector c40 = FloatVector.zero(S), c41 = FloatVector.zero(S);
        FloatVector c50 = FloatVector.zero(S), c51 = FloatVector.zero(S);
        for (int p = 0; p < k; p++) {
            int bp = b0 + p * ldb;
            FloatVector v0 = FloatVector.fromArray(S, b, bp);
            FloatVector v1 = FloatVector.fromArray(S, b, bp + L);
            FloatVector x = FloatVector.broadcast(S, a[a0 + p]);
            c00 = v0.fma(x, c00);
            c01 = v1.fma(x, c01);
            x = FloatVector.broadcast(S, a[a1 + p]);
            c10 = v0.fma(x, c10);
            c11 = v1.fma(x, c11);
            x = FloatVector.broadcast(S, a[a2 + p]);
            c20 = v0.fma(x, c20);
            c21 = v1.fma(x, c21);
            x = FloatVector.broadcast(S, a[a3 + p]);
            c30 = v0.fma(x, c30);
            c31 = v1.fma(x, c31);
            x = FloatVector.broadcast(S, a[a4 + p]);
            c40 = v0.fma(x, c40);
            c41 = v1.fma(x, c41);
            x = FloatVector.broadcast(S, a[a5 + p]);
            c50 = v0.fma(x, c50);
            c51 = v1.fma(x, c51);
        }
        accumulate(c, c0, alpha, c00, store);
        accumulate(c, c0 + L, alpha, c01, store);
        accumulate(c, c0 + ldc, alpha, c10, store);
        accumulate(c, c0 + ldc + L, alpha, c11, store);
        accumulate(c, c0 + 2 * ldc, alpha, c20, store);
        accumulate(c, c0 + 2 * ldc + L, alpha, c21, store);
        accumulate(c, c0 + 3 * ldc, alpha, c30, store);
        accumulate(c, c0 + 3 * ldc + L, alpha, c31, store);
        accumulate(c, c0 + 4 * ldc, alpha, c40, store);
        accumulate(c, c0 + 4 * ldc + L, alpha, c41, store);
        accumulate(c, c0 + 5 * ldc, alpha, c50, store);
        accumulate(c, c0 + 5 * ldc + L, alpha, c51, store);
    }

    /** C[4 rows, 2L columns at c0] ← alpha · A[4 rows at a0, :] · B[:, 2L columns at b0]. */
    private static void fourRowsTwoVectors(
            int k,
            float alpha,
            float[] a,
            int a0,
            int a1,
            int a2,
            int a3,
            float[] b,
            int b0,
            int ldb,
            float[] c,
            int c0,
            int ldc,
            boolean store) {
        FloatVector c00 = FloatVector.zero(S), c01 = FloatVector.zero(S);
        FloatVector c10 = FloatVector.zero(S), c11 = FloatVector.zero(S);
        FloatVector c20 = FloatVector.zero(S), c21 = FloatVector.zero(S);
        FloatVector c30 = FloatVector.zero(S), c31 = FloatVector.zero(S);
        for (int p = 0; p < k; p++) {
            int bp = b0 + p * ldb;
            FloatVector v0 = FloatVector.fromArray(S, b, bp);
            FloatVector v1 = FloatVector.fromArray(S, b, bp + L);
            FloatVector x = FloatVector.broadcast(S, a[a0 + p]);
            c00 = v0.fma(x, c00);
            c01 = v1.fma(x, c01);
            x = FloatVector.broadcast(S, a[a1 + p]);
            c10 = v0.fma(x, c10);
            c11 = v1.fma(x, c11);
            x = FloatVector.broadcast(S, a[a2 + p]);
            c20 = v0.fma(x, c20);
            c21 = v1.fma(x, c21);
            x = FloatVector.broadcast(S, a[a3 + p]);
            c30 = v0.fma(x, c30);
            c31 = v1.fma(x, c31);
        }
        accumulate(c, c0, alpha, c00, store);
        accumulate(c, c0 + L, alpha, c01, store);
        accumulate(c, c0 + ldc, alpha, c10, store);
        accumulate(c, c0 + ldc + L, alpha, c11, store);
        accumulate(c, c0 + 2 * ldc, alpha, c20, store);
        accumulate(c, c0 + 2 * ldc + L, alpha, c21, store);
        accumulate(c, c0 + 3 * ldc, alpha, c30, store);
        accumulate(c, c0 + 3 * ldc + L, alpha, c31, store);
    }

    /** C[4 rows, L columns at c0] ← alpha · A[4 rows at a0, :] · B[:, L columns at b0]. */
    private static void fourRowsOneVector(
            int k,
            float alpha,
            float[] a,
            int a0,
            int a1,
            int a2,
            int a3,
            float[] b,
            int b0,
            int ldb,
            float[] c,
            int c0,
            int ldc,
            boolean store) {
        FloatVector c0v = FloatVector.zero(S), c1v = FloatVector.zero(S);
        FloatVector c2v = FloatVector.zero(S), c3v = FloatVector.zero(S);
        for (int p = 0; p < k; p++) {
            FloatVector v = FloatVector.fromArray(S, b, b0 + p * ldb);
            c0v = v.fma(FloatVector.broadcast(S, a[a0 + p]), c0v);
            c1v = v.fma(FloatVector.broadcast(S, a[a1 + p]), c1v);
            c2v = v.fma(FloatVector.broadcast(S, a[a2 + p]), c2v);
            c3v = v.fma(FloatVector.broadcast(S, a[a3 + p]), c3v);
        }
        accumulate(c, c0, alpha, c0v, store);
        accumulate(c, c0 + ldc, alpha, c1v, store);
        accumulate(c, c0 + 2 * ldc, alpha, c2v, store);
        accumulate(c, c0 + 3 * ldc, alpha, c3v, store);
    }

    /** C[2 rows, 4L columns at c0] ← alpha · A[2 rows at a0, a1] · B[:, 4L columns at b0]: eight accumulators. */
    private static void twoRowsFourVectors(
            int k,
            float alpha,
            float[] a,
            int a0,
            int a1,
            float[] b,
            int b0,
            int ldb,
            float[] c,
            int c0,
            int ldc,
            boolean store) {
        FloatVector c00 = FloatVector.zero(S),
                c01 = FloatVector.zero(S),
                c02 = FloatVector.zero(S),
                c03 = FloatVector.zero(S);
        FloatVector c10 = FloatVector.zero(S),
                c11 = FloatVector.zero(S),
                c12 = FloatVector.zero(S),
                c13 = FloatVector.zero(S);
        for (int p = 0; p < k; p++) {
            int bp = b0 + p * ldb;
            FloatVector v0 = FloatVector.fromArray(S, b, bp);
            FloatVector v1 = FloatVector.fromArray(S, b, bp + L);
            FloatVector v2 = FloatVector.fromArray(S, b, bp + 2 * L);
            FloatVector v3 = FloatVector.fromArray(S, b, bp + 3 * L);
            FloatVector x = FloatVector.broadcast(S, a[a0 + p]);
            c00 = v0.fma(x, c00);
            c01 = v1.fma(x, c01);
            c02 = v2.fma(x, c02);
            c03 = v3.fma(x, c03);
            x = FloatVector.broadcast(S, a[a1 + p]);
            c10 = v0.fma(x, c10);
            c11 = v1.fma(x, c11);
            c12 = v2.fma(x, c12);
            c13 = v3.fma(x, c13);
        }
        accumulate(c, c0, alpha, c00, store);
        accumulate(c, c0 + L, alpha, c01, store);
        accumulate(c, c0 + 2 * L, alpha, c02, store);
        accumulate(c, c0 + 3 * L, alpha, c03, store);
        accumulate(c, c0 + ldc, alpha, c10, store);
        accumulate(c, c0 + ldc + L, alpha, c11, store);
        accumulate(c, c0 + ldc + 2 * L, alpha, c12, store);
        accumulate(c, c0 + ldc + 3 * L, alpha, c13, store);
    }

    /**
     * C[1 row, 4L columns at c0] ← alpha · A[1 row at a0, :] · B[:, 4L columns at b0]: a row left over below
     * the four-row blocks (conv2's 50 output channels leave two), with four accumulators so that four fused
     * multiply-adds are in flight instead of one waiting on the last.
     */
    private static void oneRowFourVectors(
            int k, float alpha, float[] a, int a0, float[] b, int b0, int ldb, float[] c, int c0, boolean store) {
        FloatVector c0v = FloatVector.zero(S), c1v = FloatVector.zero(S);
        FloatVector c2v = FloatVector.zero(S), c3v = FloatVector.zero(S);
        for (int p = 0; p < k; p++) {
            int bp = b0 + p * ldb;
            FloatVector x = FloatVector.broadcast(S, a[a0 + p]);
            c0v = FloatVector.fromArray(S, b, bp).fma(x, c0v);
            c1v = FloatVector.fromArray(S, b, bp + L).fma(x, c1v);
            c2v = FloatVector.fromArray(S, b, bp + 2 * L).fma(x, c2v);
            c3v = FloatVector.fromArray(S, b, bp + 3 * L).fma(x, c3v);
        }
        accumulate(c, c0, alpha, c0v, store);
        accumulate(c, c0 + L, alpha, c1v, store);
        accumulate(c, c0 + 2 * L, alpha, c2v, store);
        accumulate(c, c0 + 3 * L, alpha, c3v, store);
    }

    /** C[1 row, L columns at c0] ← alpha · A[1 row at a0, :] · B[:, L columns at b0]. */
    private static void oneRowOneVector(
            int k, float alpha, float[] a, int a0, float[] b, int b0, int ldb, float[] c, int c0, boolean store) {
        FloatVector acc = FloatVector.zero(S);
        for (int p = 0; p < k; p++) {
            acc = FloatVector.fromArray(S, b, b0 + p * ldb).fma(FloatVector.broadcast(S, a[a0 + p]), acc);
        }
        accumulate(c, c0, alpha, acc, store);
    }

    /**
     * C[4 rows, the columns of {@code part} at c0] ← alpha · A[4 rows] · B[:, those columns]: the columns left
     * after the whole vectors (a dense layer's 10 classes are all such), under a mask, so they still run four
     * independent vector sums instead of one scalar chain per column.
     */
    private static void fourRowsPartVector(
            int k,
            float alpha,
            float[] a,
            int a0,
            int a1,
            int a2,
            int a3,
            float[] b,
            int b0,
            int ldb,
            float[] c,
            int c0,
            int ldc,
            boolean store,
            VectorMask<Float> part) {
        FloatVector c0v = FloatVector.zero(S), c1v = FloatVector.zero(S);
        FloatVector c2v = FloatVector.zero(S), c3v = FloatVector.zero(S);
        for (int p = 0; p < k; p++) {
            FloatVector v = FloatVector.fromArray(S, b, b0 + p * ldb, part);
            c0v = v.fma(FloatVector.broadcast(S, a[a0 + p]), c0v);
            c1v = v.fma(FloatVector.broadcast(S, a[a1 + p]), c1v);
            c2v = v.fma(FloatVector.broadcast(S, a[a2 + p]), c2v);
            c3v = v.fma(FloatVector.broadcast(S, a[a3 + p]), c3v);
        }
        accumulate(c, c0, alpha, c0v, store, part);
        accumulate(c, c0 + ldc, alpha, c1v, store, part);
        accumulate(c, c0 + 2 * ldc, alpha, c2v, store, part);
        accumulate(c, c0 + 3 * ldc, alpha, c3v, store, part);
    }

    /** C[1 row, the columns of {@code part} at c0] ← alpha · A[1 row] · B[:, those columns]. */
    private static void oneRowPartVector(
            int k,
            float alpha,
            float[] a,
            int a0,
            float[] b,
            int b0,
            int ldb,
            float[] c,
            int c0,
            boolean store,
            VectorMask<Float> part) {
        FloatVector acc = FloatVector.zero(S);
        for (int p = 0; p < k; p++) {
            acc = FloatVector.fromArray(S, b, b0 + p * ldb, part).fma(FloatVector.broadcast(S, a[a0 + p]), acc);
        }
        accumulate(c, c0, alpha, acc, store, part);
    }

    /**
     * Rows of A whose dot products {@link #dots} keeps as lanes at a time: with 16-float vectors, 16 rows × 10
     * classes is 10 KB.
     */
    private static final int DOT_ROWS = 16;

    private static final Scratch<float[]> DOT_LANES = Scratch.floats();

    /**
     * C[m, n] = alpha · A[m, k] · B[n, k]ᵀ + beta · C as m·n dot products of two contiguous rows: the better form
     * when n is too narrow for the column kernels (a 3×3 filter's 9 taps, a dense layer's 10 classes). Each dot
     * product's whole vectors are summed lane by lane ({@link #addDotLanes}), then its lanes first to last, then
     * the floats past the last whole vector one by one.
     */
    static void dots(
            int m,
            int n,
            int k,
            float alpha,
            float[] a,
            int aOff,
            float[] b,
            int bOff,
            float beta,
            float[] c,
            int cOff) {
        int whole = k / L * L;
        float[] lanes = DOT_LANES.get(Math.min(m, DOT_ROWS) * n * L);
        for (int i0 = 0; i0 < m; i0 += DOT_ROWS) {
            int rows = Math.min(DOT_ROWS, m - i0);
            Arrays.fill(lanes, 0, rows * n * L, 0f);
            addDotLanes(rows, n, k, a, aOff + i0 * k, b, bOff, lanes, 0);
            for (int i = i0; i < i0 + rows; i++) {
                for (int j = 0; j < n; j++) {
                    float sum = Vectors.sumLanes(lanes, ((i - i0) * n + j) * L);
                    for (int p = whole; p < k; p++) {
                        sum = Math.fma(a[aOff + i * k + p], b[bOff + j * k + p], sum);
                    }
                    set(c, cOff + i * n + j, alpha * sum, beta);
                }
            }
        }
    }

    /**
     * {@code lanes[(i·n + j)·L, +L)} += the lane-wise sums of A's row i times B's row j, A [m, k] and B [n, k] rows,
     * over k's whole vectors: dot products with their lanes not yet added together, so that a caller can go on
     * adding to them (the fused first layer, image after image) and add the lanes once at the end. With 32
     * registers, twenty at a time (four rows of A with five of B: nine loads for twenty fused multiply-adds); then
     * eight (two rows with four: six loads for eight), then four; an odd last column four rows at a time: enough
     * independent sums that the fused multiply-adds do not wait on each other (a lone dot product, such as conv1's
     * ninth tap, waits on each one's latency).
     */
    static void addDotLanes(int m, int n, int k, float[] a, int aOff, float[] b, int bOff, float[] lanes, int at) {
        int row = n * L, i = 0, fives = MANY_REGISTERS ? n / 5 * 5 : 0;
        if (fives > 0) {
            for (; i + 4 <= m; i += 4) {
                for (int j = 0; j < fives; j += 5) {
                    twentyDotLanes(k, a, aOff + i * k, b, bOff + j * k, lanes, at + i * row + j * L, row);
                }
            }
            dotLanes(0, i, fives, n, k, a, aOff, b, bOff, lanes, at, row);
        }
        dotLanes(i, m, 0, n, k, a, aOff, b, bOff, lanes, at, row);
    }

    /** {@link #addDotLanes} for rows {@code [i0, i1)} of A and {@code [j0, j1)} of B, lanes {@code row} a row. */
    private static void dotLanes(
            int i0,
            int i1,
            int j0,
            int j1,
            int k,
            float[] a,
            int aOff,
            float[] b,
            int bOff,
            float[] lanes,
            int at,
            int row) {
        int i = i0;
        for (; i + 2 <= i1; i += 2) {
            int j = j0;
            for (; j + 4 <= j1; j += 4) {
                eightDotLanes(k, a, aOff + i * k, b, bOff + j * k, lanes, at + i * row + j * L, row);
            }
            for (; j + 2 <= j1; j += 2) {
                fourDotLanes(k, a, aOff + i * k, b, bOff + j * k, lanes, at + i * row + j * L, row);
            }
        }
        if ((j1 - j0) % 2 == 1) {
            int last = j1 - 1, r = i0;
            for (; r + 4 <= i; r += 4) {
                fourRowsOneDotLanes(k, a, aOff + r * k, b, bOff + last * k, lanes, at + r * row + last * L, row);
            }
            for (; r < i; r++) {
                oneDotLanes(k, a, aOff + r * k, b, bOff + last * k, lanes, at + r * row + last * L);
            }
        }
        for (; i < i1; i++) {
            for (int j = j0; j < j1; j++) {
                oneDotLanes(k, a, aOff + i * k, b, bOff + j * k, lanes, at + i * row + j * L);
            }
        }
    }

    /** Lanes at l0 (rows {@code row} apart) += A's rows at a0 … a0 + 3k times B's rows at b0 … b0 + 4k, lane-wise. */
    private static void twentyDotLanes(int k, float[] a, int a0, float[] b, int b0, float[] lanes, int l0, int row) {
        int l1 = l0 + row, l2 = l1 + row, l3 = l2 + row;
        FloatVector s00 = FloatVector.fromArray(S, lanes, l0), s01 = FloatVector.fromArray(S, lanes, l0 + L);
        FloatVector s02 = FloatVector.fromArray(S, lanes, l0 + 2 * L),
                s03 = FloatVector.fromArray(S, lanes, l0 + 3 * L);
        FloatVector s04 = FloatVector.fromArray(S, lanes, l0 + 4 * L);
        FloatVector s10 = FloatVector.fromArray(S, lanes, l1), s11 = FloatVector.fromArray(S, lanes, l1 + L);
        FloatVector s12 = FloatVector.fromArray(S, lanes, l1 + 2 * L),
                s13 = FloatVector.fromArray(S, lanes, l1 + 3 * L);
        FloatVector s14 = FloatVector.fromArray(S, lanes, l1 + 4 * L);
        FloatVector s20 = FloatVector.fromArray(S, lanes, l2), s21 = FloatVector.fromArray(S, lanes, l2 + L);
        FloatVector s22 = FloatVector.fromArray(S, lanes, l2 + 2 * L),
                s23 = FloatVector.fromArray(S, lanes, l2 + 3 * L);
        FloatVector s24 = FloatVector.fromArray(S, lanes, l2 + 4 * L);
        FloatVector s30 = FloatVector.fromArray(S, lanes, l3), s31 = FloatVector.fromArray(S, lanes, l3 + L);
        FloatVector s32 = FloatVector.fromArray(S, lanes, l3 + 2 * L),
                s33 = FloatVector.fromArray(S, lanes, l3 + 3 * L);
        FloatVector s34 = FloatVector.fromArray(S, lanes, l3 + 4 * L);
        int a1 = a0 + k, a2 = a1 + k, a3 = a2 + k, b1 = b0 + k, b2 = b1 + k, b3 = b2 + k, b4 = b3 + k;
        for (int p = 0; p + L <= k; p += L) {
            FloatVector x0 = FloatVector.fromArray(S, a, a0 + p), x1 = FloatVector.fromArray(S, a, a1 + p);
            FloatVector x2 = FloatVector.fromArray(S, a, a2 + p), x3 = FloatVector.fromArray(S, a, a3 + p);
            FloatVector y = FloatVector.fromArray(S, b, b0 + p);
            s00 = x0.fma(y, s00);
            s10 = x1.fma(y, s10);
            s20 = x2.fma(y, s20);
            s30 = x3.fma(y, s30);
            y = FloatVector.fromArray(S, b, b1 + p);
            s01 = x0.fma(y, s01);
            s11 = x1.fma(y, s11);
            s21 = x2.fma(y, s21);
            s31 = x3.fma(y, s31);
            y = FloatVector.fromArray(S, b, b2 + p);
            s02 = x0.fma(y, s02);
            s12 = x1.fma(y, s12);
            s22 = x2.fma(y, s22);
            s32 = x3.fma(y, s32);
            y = FloatVector.fromArray(S, b, b3 + p);
            s03 = x0.fma(y, s03);
            s13 = x1.fma(y, s13);
            s23 = x2.fma(y, s23);
            s33 = x3.fma(y, s33);
            y = FloatVector.fromArray(S, b, b4 + p);
            s04 = x0.fma(y, s04);
            s14 = x1.fma(y, s14);
            s24 = x2.fma(y, s24);
            s34 = x3.fma(y, s34);
        }
        s00.intoArray(lanes, l0);
        s01.intoArray(lanes, l0 + L);
        s02.intoArray(lanes, l0 + 2 * L);
        s03.intoArray(lanes, l0 + 3 * L);
        s04.intoArray(lanes, l0 + 4 * L);
        s10.intoArray(lanes, l1);
        s11.intoArray(lanes, l1 + L);
        s12.intoArray(lanes, l1 + 2 * L);
        s13.intoArray(lanes, l1 + 3 * L);
        s14.intoArray(lanes, l1 + 4 * L);
        s20.intoArray(lanes, l2);
        s21.intoArray(lanes, l2 + L);
        s22.intoArray(lanes, l2 + 2 * L);
        s23.intoArray(lanes, l2 + 3 * L);
        s24.intoArray(lanes, l2 + 4 * L);
        s30.intoArray(lanes, l3);
        s31.intoArray(lanes, l3 + L);
        s32.intoArray(lanes, l3 + 2 * L);
        s33.intoArray(lanes, l3 + 3 * L);
        s34.intoArray(lanes, l3 + 4 * L);
    }

    /** Lanes at l0 (rows {@code row} apart) += A's rows at a0, a0 + k times B's rows at b0 … b0 + 3k, lane-wise. */
    private static void eightDotLanes(int k, float[] a, int a0, float[] b, int b0, float[] lanes, int l0, int row) {
        int l1 = l0 + row;
        FloatVector s00 = FloatVector.fromArray(S, lanes, l0), s01 = FloatVector.fromArray(S, lanes, l0 + L);
        FloatVector s02 = FloatVector.fromArray(S, lanes, l0 + 2 * L);
        FloatVector s03 = FloatVector.fromArray(S, lanes, l0 + 3 * L);
        FloatVector s10 = FloatVector.fromArray(S, lanes, l1), s11 = FloatVector.fromArray(S, lanes, l1 + L);
        FloatVector s12 = FloatVector.fromArray(S, lanes, l1 + 2 * L);
        FloatVector s13 = FloatVector.fromArray(S, lanes, l1 + 3 * L);
        int a1 = a0 + k, b1 = b0 + k, b2 = b1 + k, b3 = b2 + k;
        for (int p = 0; p + L <= k; p += L) {
            FloatVector x0 = FloatVector.fromArray(S, a, a0 + p), x1 = FloatVector.fromArray(S, a, a1 + p);
            FloatVector y0 = FloatVector.fromArray(S, b, b0 + p), y1 = FloatVector.fromArray(S, b, b1 + p);
            FloatVector y2 = FloatVector.fromArray(S, b, b2 + p), y3 = FloatVector.fromArray(S, b, b3 + p);
            s00 = x0.fma(y0, s00);
            s01 = x0.fma(y1, s01);
            s02 = x0.fma(y2, s02);
            s03 = x0.fma(y3, s03);
            s10 = x1.fma(y0, s10);
            s11 = x1.fma(y1, s11);
            s12 = x1.fma(y2, s12);
            s13 = x1.fma(y3, s13);
        }
        s00.intoArray(lanes, l0);
        s01.intoArray(lanes, l0 + L);
        s02.intoArray(lanes, l0 + 2 * L);
        s03.intoArray(lanes, l0 + 3 * L);
        s10.intoArray(lanes, l1);
        s11.intoArray(lanes, l1 + L);
        s12.intoArray(lanes, l1 + 2 * L);
        s13.intoArray(lanes, l1 + 3 * L);
    }

    /** Lanes at l0 (rows {@code row} apart) += A's rows at a0, a0 + k times B's rows at b0, b0 + k, lane-wise. */
    private static void fourDotLanes(int k, float[] a, int a0, float[] b, int b0, float[] lanes, int l0, int row) {
        int l1 = l0 + row;
        FloatVector s00 = FloatVector.fromArray(S, lanes, l0), s01 = FloatVector.fromArray(S, lanes, l0 + L);
        FloatVector s10 = FloatVector.fromArray(S, lanes, l1), s11 = FloatVector.fromArray(S, lanes, l1 + L);
        int a1 = a0 + k, b1 = b0 + k;
        for (int p = 0; p + L <= k; p += L) {
            FloatVector x0 = FloatVector.fromArray(S, a, a0 + p), x1 = FloatVector.fromArray(S, a, a1 + p);
            FloatVector y0 = FloatVector.fromArray(S, b, b0 + p), y1 = FloatVector.fromArray(S, b, b1 + p);
            s00 = x0.fma(y0, s00);
            s01 = x0.fma(y1, s01);
            s10 = x1.fma(y0, s10);
            s11 = x1.fma(y1, s11);
        }
        s00.intoArray(lanes, l0);
        s01.intoArray(lanes, l0 + L);
        s10.intoArray(lanes, l1);
        s11.intoArray(lanes, l1 + L);
    }

    /** Lanes at l0 (rows {@code row} apart) += A's rows at a0 … a0 + 3k times B's row at b0, lane-wise. */
    private static void fourRowsOneDotLanes(
            int k, float[] a, int a0, float[] b, int b0, float[] lanes, int l0, int row) {
        FloatVector s0 = FloatVector.fromArray(S, lanes, l0), s1 = FloatVector.fromArray(S, lanes, l0 + row);
        FloatVector s2 = FloatVector.fromArray(S, lanes, l0 + 2 * row);
        FloatVector s3 = FloatVector.fromArray(S, lanes, l0 + 3 * row);
        int a1 = a0 + k, a2 = a1 + k, a3 = a2 + k;
        for (int p = 0; p + L <= k; p += L) {
            FloatVector y = FloatVector.fromArray(S, b, b0 + p);
            s0 = FloatVector.fromArray(S, a, a0 + p).fma(y, s0);
            s1 = FloatVector.fromArray(S, a, a1 + p).fma(y, s1);
            s2 = FloatVector.fromArray(S, a, a2 + p).fma(y, s2);
            s3 = FloatVector.fromArray(S, a, a3 + p).fma(y, s3);
        }
        s0.intoArray(lanes, l0);
        s1.intoArray(lanes, l0 + row);
        s2.intoArray(lanes, l0 + 2 * row);
        s3.intoArray(lanes, l0 + 3 * row);
    }

    /** Lanes at l0 += A's row at a0 times B's row at b0, lane-wise. */
    private static void oneDotLanes(int k, float[] a, int a0, float[] b, int b0, float[] lanes, int l0) {
        FloatVector acc = FloatVector.fromArray(S, lanes, l0);
        for (int p = 0; p + L <= k; p += L) {
            acc = FloatVector.fromArray(S, a, a0 + p).fma(FloatVector.fromArray(S, b, b0 + p), acc);
        }
        acc.intoArray(lanes, l0);
    }

    /** {@code c[at] = product + beta · c[at]}, c not read when beta is 0. */
    private static void set(float[] c, int at, float product, float beta) {
        c[at] = beta == 0f ? product : beta * c[at] + product;
    }

    /** Whether {@code n} columns are too few for the vector column kernels. */
    static boolean narrow(int n) {
        return n < 2 * L;
    }

    /**
     * C at {@code at} gets alpha·v: added to it, or with {@code store} (beta = 0) written over it unread. Each
     * case ends in its own store, so no vector value is chosen by a condition. Once both cases have run in one
     * JVM the JIT's code for every kernel that calls this is slower (docs/performance-log.md), so every multiply
     * in training stores its product, and callers that need a sum add the stored product themselves.
     */
    private static void accumulate(float[] c, int at, float alpha, FloatVector v, boolean store) {
        if (store) {
            if (alpha == 1f) {
                v.intoArray(c, at);
            } else {
                v.mul(alpha).intoArray(c, at);
            }
        } else if (alpha == 1f) {
            FloatVector.fromArray(S, c, at).add(v).intoArray(c, at);
        } else {
            FloatVector.fromArray(S, c, at).add(v.mul(alpha)).intoArray(c, at);
        }
    }

    /** {@link #accumulate} for the lanes of {@code part} only. */
    private static void accumulate(
            float[] c, int at, float alpha, FloatVector v, boolean store, VectorMask<Float> part) {
        if (store) {
            v.mul(alpha).intoArray(c, at, part);
        } else {
            FloatVector.fromArray(S, c, at, part).add(v.mul(alpha)).intoArray(c, at, part);
        }
    }

    /** {@code n} rounded up to whole vectors. */
    static int roundUpToVectors(int n) {
        return roundUpTo(n, L);
    }

    /** {@code n} rounded up to a multiple of {@code multiple}. */
    static int roundUpTo(int n, int multiple) {
        return (n + multiple - 1) / multiple * multiple;
    }

    /**
     * {@code dst[cols, rows] = src[rows, cols]ᵀ + beta·dst}, src at {@code srcOff} and dst at {@code dstOff}; with
     * beta 0 dst is written without being read.
     */
    static void transpose(float[] src, int srcOff, int rows, int cols, float beta, float[] dst, int dstOff) {
        for (int r = 0; r < rows; r++) {
            for (int c = 0; c < cols; c++) {
                int at = dstOff + c * rows + r;
                float v = src[srcOff + r * cols + c];
                dst[at] = beta == 0f ? v : v + beta * dst[at];
            }
        }
    }
}
