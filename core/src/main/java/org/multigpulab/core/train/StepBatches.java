package org.multigpulab.core.train;

import java.util.Iterator;
import java.util.Optional;
import org.multigpulab.core.data.BatchIterator;
import org.multigpulab.core.data.HostBatch;
import org.multigpulab.device.Timeline;

/**
 * The micro-batches of one optimizer step: the next {@code accumulate} batches of an epoch, or those it has left.
 * Each one's gathering is timed and, on simulated GPUs, counted as the host's work; the number of the last one
 * taken is {@link #batchesDone()}.
 */
final class StepBatches implements Iterator<HostBatch> {

    private final BatchIterator epoch;
    private final int accumulate;
    private final Optional<Timeline> timeline;
    private int taken;
    private int batchesDone;

    StepBatches(BatchIterator epoch, int accumulate, Optional<Timeline> timeline) {
        this.epoch = epoch;
        this.accumulate = accumulate;
        this.timeline = timeline;
    }

    @Override
    public boolean hasNext() {
        return taken < accumulate && epoch.hasNext();
    }

    @Override
    public HostBatch next() {
        long gather = System.nanoTime();
        HostBatch batch = epoch.next();
        double gatherSec = (System.nanoTime() - gather) / 1e9;
        timeline.ifPresent(t -> t.hostWork(gatherSec));
        taken++;
        batchesDone = batch.number();
        return batch;
    }

    /** The number in its epoch of the last batch taken. */
    int batchesDone() {
        return batchesDone;
    }
}
