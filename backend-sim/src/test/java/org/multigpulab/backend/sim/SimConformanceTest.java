package org.multigpulab.backend.sim;

import org.multigpulab.device.Backends;
import org.multigpulab.device.Device;
import org.multigpulab.device.DeviceRequest;
import org.multigpulab.device.conformance.KernelConformanceKit;

/** The conformance kit on a logical GPU of {@code sim} over {@code cpu} (the second of three, not the first). */
class SimConformanceTest extends KernelConformanceKit {

    @Override
    protected Device openDevice() {
        return Backends.open("sim", DeviceRequest.of(3)).get(1);
    }
}
