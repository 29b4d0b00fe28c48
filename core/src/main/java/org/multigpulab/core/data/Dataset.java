package org.multigpulab.core.data;

import java.util.Arrays;

/**
 * Images and labels in host memory: {@code count} images of {@code shape} unsigned-byte pixels (channel by channel,
 * row by row), one after another in {@code pixels}, and one label byte each. Immutable by convention (arrays are
 * not copied).
 */
public record Dataset(String name, byte[] pixels, byte[] labels, int count, ImageShape shape) {

    public Dataset {
        if (pixels.length != (long) count * shape.length() || labels.length != count) {
            throw new IllegalArgumentException(name + ": " + count + " images of " + shape + " need "
                    + (long) count * shape.length() + " pixel bytes and " + count + " labels");
        }
    }

    public int sampleLength() {
        return shape.length();
    }

    public int label(int i) {
        return labels[i] & 0xff;
    }

    /** The first {@code n} samples (the lab's {@code --train-samples} / {@code --test-samples}). */
    public Dataset first(int n) {
        if (n <= 0 || n > count) {
            throw new DataException(name + " has " + count + " samples; ask for between 1 and " + count + ", not " + n);
        }
        if (n == count) {
            return this;
        }
        return new Dataset(name, Arrays.copyOf(pixels, n * sampleLength()), Arrays.copyOf(labels, n), n, shape);
    }

    /** Writes sample {@code i} as floats in [0, 1] into {@code x[offset…]} and its label into {@code y[row]}. */
    void copySample(int i, float[] x, int offset, float[] y, int row) {
        int n = sampleLength();
        int src = i * n;
        for (int p = 0; p < n; p++) {
            x[offset + p] = (pixels[src + p] & 0xff) / 255f;
        }
        y[row] = label(i);
    }
}
