package org.multigpulab.backend.djl;

import java.util.Set;
import org.multigpulab.device.Backends;
import org.multigpulab.device.Device;
import org.multigpulab.device.DeviceRequest;
import org.multigpulab.device.KernelOp;
import org.multigpulab.device.conformance.KernelConformanceKit;

/** The conformance kit on the first djl device (max pooling left out): a CUDA GPU where there is one, else djl:cpu. */
class DjlConformanceTest extends KernelConformanceKit {

    @Override
    protected Device openDevice() {
        return Backends.open(DjlBackend.NAME, DeviceRequest.of(1)).getFirst();
    }

    @Override
    protected Set<Class<? extends KernelOp.Call>> leftOut() {
        return Set.of(KernelOp.MaxPoolForward.class, KernelOp.MaxPoolBackward.class);
    }
}
