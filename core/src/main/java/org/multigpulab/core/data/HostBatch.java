package org.multigpulab.core.data;

/**
 * A mini-batch in host memory: {@code size} images of {@code shape} in {@code x} (pixels scaled to [0, 1], as
 * {@code transforms.ToTensor}) and their class labels as floats in {@code y}; {@code number} is its place in its
 * epoch, from 1, as a {@link BatchIterator} hands them out. The arrays may be longer than {@code size} samples: a
 * batch iterator reuses them.
 */
public record HostBatch(float[] x, float[] y, int size, ImageShape shape, int number) {

    /** The floats of one image. */
    public int sampleLength() {
        return shape.length();
    }
}
