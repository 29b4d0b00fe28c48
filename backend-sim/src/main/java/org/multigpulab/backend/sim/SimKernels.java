package org.multigpulab.backend.sim;

import org.multigpulab.device.Buffer;
import org.multigpulab.device.KernelOp;
import org.multigpulab.device.Kernels;

/**
 * A logical GPU's kernels: each call is charged to the timeline (after the buffers it reads are written and the
 * ones it writes are free, as its {@link KernelOp} says) and runs on the physical device with the buffers
 * underneath; in time-only mode ({@code physical} null) it is only charged. The {@code InstrumentedKernels} in front has already checked that every buffer belongs to this
 * logical GPU.
 */
final class SimKernels extends KernelOp.Wrapper {

    private final Kernels physical;
    private final SimTimeline timeline;
    private final int device;
    private final boolean comm;

    /** {@code comm}: these are the kernels of the communication stream, timed beside the compute stream. */
    SimKernels(Kernels physical, SimTimeline timeline, int device, boolean comm) {
        this.physical = physical;
        this.timeline = timeline;
        this.device = device;
        this.comm = comm;
    }

    @Override
    protected void call(KernelOp.Call call) {
        timeline.kernel(device, comm, call);
        if (physical != null) {
            call.launch(physical, SimKernels::underneath);
        }
    }

    private static Buffer underneath(Buffer b) {
        return ((SimBuffer) b).physical;
    }
}
