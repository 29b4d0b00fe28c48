package org.multigpulab.backend.cpu;

import java.util.Arrays;

/**
 * Single-threaded row-major matrix multiply {@code C = alpha·op(A)·B + beta·C} on array windows, for a range
 * of rows of C so that callers can split the rows across cores.
 *
 * <p>The inner loop runs along a row of B and a row of C ({@code c[j] += a·b[j]}), which the JIT turns into
 * vector instructions. B must be in row order {@code [k, n]}; {@link #transpose} puts a transposed one there.
 */
final class Gemm {

    private Gemm() {
    }

    static void multiplyRows(boolean transA, int m, int n, int k, float alpha, float[] a, int aOff,
                             float[] b, int bOff, float beta, float[] c, int cOff, int rowFrom, int rowTo) {
        for (int i = rowFrom; i < rowTo; i++) {
            int ci = cOff + i * n;
            if (beta == 0f) {
                Arrays.fill(c, ci, ci + n, 0f);
            } else if (beta != 1f) {
                for (int j = 0; j < n; j++) {
                    c[ci + j] *= beta;
                }
            }
            for (int p = 0; p < k; p++) {
                float aip = alpha * (transA ? a[aOff + p * m + i] : a[aOff + i * k + p]);
                int bp = bOff + p * n;
                for (int j = 0; j < n; j++) {
                    c[ci + j] += aip * b[bp + j];
                }
            }
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
