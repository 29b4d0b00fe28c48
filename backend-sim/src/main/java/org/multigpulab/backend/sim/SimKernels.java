package org.multigpulab.backend.sim;

import org.multigpulab.device.Buffer;
import org.multigpulab.device.KernelOp;
import org.multigpulab.device.Kernels;

/**
 * A logical GPU's kernels: each call is charged to the timeline (after the buffers it reads are written and the
 * ones it writes are free, as its {@link KernelOp} says) and queued to run on the physical device, with the buffers
 * underneath, when the cluster next runs its queues; in time-only mode ({@code cluster.physical()} null) it is only
 * charged. The {@code InstrumentedKernels} in front has already checked that every buffer belongs to this logical
 * GPU.
 */
final class SimKernels implements Kernels {

    private final SimCluster cluster;
    private final int device;
    private final boolean comm;

    /** {@code comm}: these are the kernels of the communication stream, timed beside the compute stream. */
    SimKernels(SimCluster cluster, int device, boolean comm) {
        this.cluster = cluster;
        this.device = device;
        this.comm = comm;
    }

    @Override
    public void launch(KernelOp.Call call) {
        cluster.timeline().kernel(device, comm, call);
        if (cluster.physical() != null) {
            cluster.queue(device, call);
        }
    }

    static Buffer underneath(Buffer b) {
        return ((SimBuffer) b).physical;
    }
}
