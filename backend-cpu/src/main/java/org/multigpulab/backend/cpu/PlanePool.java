package org.multigpulab.backend.cpu;

import java.util.Arrays;
import org.multigpulab.device.PoolShape;

/**
 * Average pooling of one plane each way, its rows {@code rowStride} apart (the plane's width, or more where a
 * plane is stored in wider rows): 2×2 windows at stride 2 by {@link HalvingPool}, any other window by plain loops.
 */
final class PlanePool {

    private PlanePool() {}

    /**
     * The means of the plane at {@code x[in]} into {@code y[out]}, values at or below {@code floor} counted as 0:
     * with a floor of NaN, which no value is at or below, x as it is; with 0, the ReLU of each value as it is
     * read, bit for bit what {@link CpuKernels#reluForward} stores.
     */
    static void forward(float[] x, int in, int rowStride, float floor, float[] y, int out, PoolShape s) {
        int oh = s.outHeight(), ow = s.outWidth(), k = s.window();
        if (k == 2 && s.stride() == 2) {
            HalvingPool.forward(x, in, rowStride, floor, y, out, oh, ow);
            return;
        }
        float inv = 1f / (k * k);
        for (int i = 0; i < oh; i++) {
            for (int j = 0; j < ow; j++) {
                float sum = 0f;
                for (int p = 0; p < k; p++) {
                    for (int q = 0; q < k; q++) {
                        sum += HalvingPool.floored(
                                x[in + (i * s.stride() + p) * rowStride + j * s.stride() + q], floor);
                    }
                }
                y[out + i * ow + j] = sum * inv;
            }
        }
    }

    /**
     * Pooling's gradient of the plane at {@code dy[out]} into the plane at {@code dx[in]}; with {@code x} (the
     * plane at {@code x[xIn]}, rows as far apart), only where {@code x > 0} and zero elsewhere: ReLU's gradient
     * too. Where the windows tile the plane only its {@code width} columns of each row are written, else all
     * {@code height × rowStride} floats.
     */
    static void backward(float[] dy, int out, float[] x, int xIn, float[] dx, int in, int rowStride, PoolShape s) {
        int oh = s.outHeight(), ow = s.outWidth(), k = s.window(), planeSize = s.height() * rowStride;
        boolean halving = k == 2 && s.stride() == 2;
        // Windows that tile the plane write every input: clearing it first would be a wasted pass over memory
        if (!halving || 2 * oh != s.height() || 2 * ow != s.width()) {
            Arrays.fill(dx, in, in + planeSize, 0f);
        }
        if (halving && x == null) {
            HalvingPool.backward(dy, out, oh, ow, dx, in, rowStride);
        } else if (halving) {
            HalvingPool.backwardWherePositive(dy, out, oh, ow, x, xIn, dx, in, rowStride);
        } else {
            float inv = 1f / (k * k);
            for (int i = 0; i < oh; i++) {
                for (int j = 0; j < ow; j++) {
                    float g = dy[out + i * ow + j] * inv;
                    for (int p = 0; p < k; p++) {
                        for (int q = 0; q < k; q++) {
                            dx[in + (i * s.stride() + p) * rowStride + j * s.stride() + q] += g;
                        }
                    }
                }
            }
            if (x != null) {
                // the plane's gradient is still in the core's cache
                Vectors.passWherePositive(x, xIn, dx, in, dx, in, 0, planeSize);
            }
        }
    }
}
