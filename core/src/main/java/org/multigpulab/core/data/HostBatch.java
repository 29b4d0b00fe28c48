package org.multigpulab.core.data;

/**
 * A mini-batch in host memory: {@code size} images of {@code sampleLength} floats in {@code x} (pixels scaled
 * to [0, 1], as {@code transforms.ToTensor}) and their class labels as floats in {@code y}. The arrays may be
 * longer than {@code size} samples: a batch iterator reuses them.
 */
public record HostBatch(float[] x, float[] y, int size, int sampleLength) {
}
