package org.multigpulab.core.parallel;

/**
 * Over which devices a data-parallel BatchNorm takes its statistics, as PyTorch offers it: {@link #LOCAL}, each
 * device over its own shard ({@code nn.BatchNorm2d} under {@code nn.DataParallel} or DDP, the running statistics
 * kept being device 0's); {@link #SYNC}, every device of every process over the whole global batch
 * ({@code nn.SyncBatchNorm}), at the price of small all-reduces inside every BatchNorm's forward and backward pass.
 */
public enum BatchNormStatistics {
    LOCAL,
    SYNC
}
