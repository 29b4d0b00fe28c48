package org.multigpulab.backend.sim;

import org.multigpulab.device.Buffer;
import org.multigpulab.device.KernelObserver;
import org.multigpulab.device.KernelOp;

/**
 * A logical GPU's kernels: each call is charged to the timeline (after the buffers it reads are written and the
 * ones it writes are free, as its {@link KernelOp} says) and queued to run on the physical device, with the buffers
 * underneath, when the cluster next runs its queues; in time-only mode ({@code cluster.physical()} null) it is only
 * charged, and counted as taking no time. The {@code InstrumentedKernels} in front has already checked that every
 * buffer belongs to this logical GPU.
 */
final class SimKernels extends KernelOp.Wrapper {

    private final SimCluster cluster;
    private final int device;
    private final boolean comm;
    private final KernelObserver timeOnly;

    /**
     * {@code comm}: these are the kernels of the communication stream, timed beside the compute stream;
     * {@code stats}: told of each call in time-only mode (else when it runs, by the cluster).
     */
    SimKernels(SimCluster cluster, int device, boolean comm, KernelObserver stats) {
        this.cluster = cluster;
        this.device = device;
        this.comm = comm;
        this.timeOnly = stats;
    }

    @Override
    protected void call(KernelOp.Call call) {
        cluster.timeline().kernel(device, comm, call);
        if (cluster.physical() != null) {
            cluster.queue(device, call);
        } else {
            timeOnly.onKernel(call, 0);
        }
    }

    static Buffer underneath(Buffer b) {
        return ((SimBuffer) b).physical;
    }
}
