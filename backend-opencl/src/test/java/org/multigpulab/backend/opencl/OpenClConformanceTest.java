package org.multigpulab.backend.opencl;

import java.util.Set;
import org.multigpulab.device.Availability;
import org.multigpulab.device.Backends;
import org.multigpulab.device.Device;
import org.multigpulab.device.DeviceRequest;
import org.multigpulab.device.KernelOp;
import org.multigpulab.device.conformance.KernelConformanceKit;
import org.multigpulab.device.testing.Prerequisite;

/**
 * The conformance kit on {@code opencl:0} (PoCL on the processor in CI). In CI a missing OpenCL platform fails
 * the test, so these tests never silently skip there; elsewhere they are skipped with the reason.
 */
class OpenClConformanceTest extends KernelConformanceKit {

    static void requireOpenCl() {
        Availability a = Backends.find("opencl").availability();
        Prerequisite.require("opencl", a.available(), a.reason());
    }

    @Override
    protected Device openDevice() {
        requireOpenCl();
        return Backends.open("opencl", DeviceRequest.of(1)).getFirst();
    }

    @Override
    protected Set<Class<? extends KernelOp.Call>> leftOut() {
        return Set.of(KernelOp.MaxPoolForward.class, KernelOp.MaxPoolBackward.class);
    }
}
