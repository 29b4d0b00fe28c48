package org.multigpulab.backend.cpu;

import org.multigpulab.device.Backends;
import org.multigpulab.device.Device;
import org.multigpulab.device.DeviceRequest;
import org.multigpulab.device.conformance.KernelConformanceKit;

/** The conformance kit on {@code cpu:0}. */
class CpuConformanceTest extends KernelConformanceKit {

    @Override
    protected Device openDevice() {
        return Backends.open("cpu", DeviceRequest.of(1)).getFirst();
    }
}
