package org.multigpulab.device;

/**
 * Told of every kernel launch on a device: the call (its op, FLOPs and bytes) and the host-observed nanoseconds
 * it took. The call holds the launch's buffers: read it during {@link #onKernel}, do not keep it.
 */
@FunctionalInterface
public interface KernelObserver {

    void onKernel(KernelOp.Call call, long nanos);
}
