package org.multigpulab.backend.cpu;

import java.util.Arrays;
import org.multigpulab.device.PoolShape;

/**
 * Max pooling each way, plane by plane over the processor's cores: {@code max_pool_forward} takes each window's
 * largest element, {@code max_pool_backward} adds each window's gradient at that element, found again in the input
 * (the first of equal ones, as PyTorch picks it). Plain loops: only torchvision's ResNet stem pools this way, once
 * a step.
 */
final class MaxPool {

    private MaxPool() {}

    static void forward(CpuBuffer x, CpuBuffer y, PoolShape s) {
        int pooled = s.outHeight() * s.outWidth();
        Parallel.forRange(s.planes(), (long) s.inputLength(), (chunk, from, to) -> {
            for (int plane = from; plane < to; plane++) {
                for (int o = 0; o < pooled; o++) {
                    y.data[y.offset + plane * pooled + o] = x.data[x.offset + argmax(x, s, plane, o)];
                }
            }
        });
    }

    static void backward(CpuBuffer x, CpuBuffer dy, CpuBuffer dx, PoolShape s) {
        int planeSize = s.height() * s.width(), pooled = s.outHeight() * s.outWidth();
        Parallel.forRange(s.planes(), (long) s.inputLength(), (chunk, from, to) -> {
            Arrays.fill(dx.data, dx.offset + from * planeSize, dx.offset + to * planeSize, 0f);
            for (int plane = from; plane < to; plane++) {
                for (int o = 0; o < pooled; o++) {
                    dx.data[dx.offset + argmax(x, s, plane, o)] += dy.data[dy.offset + plane * pooled + o];
                }
            }
        });
    }

    /** Where, from {@code x}'s offset, window {@code o} of {@code plane} has its first largest element. */
    private static int argmax(CpuBuffer x, PoolShape s, int plane, int o) {
        int i = o / s.outWidth(), j = o % s.outWidth();
        int best = -1;
        for (int p = 0; p < s.window(); p++) {
            int r = i * s.stride() - s.padding() + p;
            if (r < 0 || r >= s.height()) {
                continue;
            }
            for (int q = 0; q < s.window(); q++) {
                int c = j * s.stride() - s.padding() + q;
                if (c < 0 || c >= s.width()) {
                    continue;
                }
                int at = (plane * s.height() + r) * s.width() + c;
                if (best < 0 || x.data[x.offset + at] > x.data[x.offset + best]) {
                    best = at;
                }
            }
        }
        return best;
    }
}
