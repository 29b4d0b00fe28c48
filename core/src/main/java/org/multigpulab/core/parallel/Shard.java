package org.multigpulab.core.parallel;

import org.multigpulab.device.Buffer;

/**
 * One device's part of a mini-batch: {@code size} samples in {@code x}, their labels in {@code y}; a device that
 * got no rows has {@link #none()}, whose buffers are null.
 */
public record Shard(Buffer x, Buffer y, int size) {

    /** The part of a device that got no rows of the batch. */
    public static Shard none() {
        return new Shard(null, null, 0);
    }

    public boolean isEmpty() {
        return size == 0;
    }
}
