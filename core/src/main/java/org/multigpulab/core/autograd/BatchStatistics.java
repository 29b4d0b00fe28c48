package org.multigpulab.core.autograd;

import org.multigpulab.device.Buffer;

/**
 * Over which devices BatchNorm's statistics are taken: every training pass sums its per-channel sums through this,
 * at the same points on every device. {@link #LOCAL}, each device's own shard (PyTorch's {@code nn.DataParallel}
 * and DDP with {@code nn.BatchNorm2d}); or every device's and process's at once ({@code nn.SyncBatchNorm}).
 */
public interface BatchStatistics {

    /**
     * Sums {@code sums}, per-channel sums over {@code count} values a channel on this device, over the devices that
     * share statistics, in place; returns how many values a channel they sum together.
     */
    long allReduce(Buffer sums, long count);

    /** Each device its own statistics: nothing to sum. */
    BatchStatistics LOCAL = (sums, count) -> count;
}
