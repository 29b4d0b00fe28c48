package org.multigpulab.device;

/** Told of every kernel launch on a device: its cost and the host-observed nanoseconds the call took. */
@FunctionalInterface
public interface KernelObserver {

    void onKernel(KernelCost cost, long nanos);
}
