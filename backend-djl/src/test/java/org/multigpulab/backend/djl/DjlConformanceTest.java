package org.multigpulab.backend.djl;

import org.multigpulab.device.Backends;
import org.multigpulab.device.Device;
import org.multigpulab.device.DeviceRequest;
import org.multigpulab.device.conformance.KernelConformanceKit;

/** The conformance kit, unchanged, on the first djl device: a CUDA GPU where there is one, else djl:cpu. */
class DjlConformanceTest extends KernelConformanceKit {

    @Override
    protected Device openDevice() {
        return Backends.open(DjlBackend.NAME, DeviceRequest.of(1)).getFirst();
    }
}
