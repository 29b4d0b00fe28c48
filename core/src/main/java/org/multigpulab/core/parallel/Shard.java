package org.multigpulab.core.parallel;

import org.multigpulab.device.Buffer;

/** One device's part of a mini-batch: {@code size} samples in {@code x}, their labels in {@code y}. */
public record Shard(Buffer x, Buffer y, int size) {}
