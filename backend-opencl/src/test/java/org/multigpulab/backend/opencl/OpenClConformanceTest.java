package org.multigpulab.backend.opencl;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.multigpulab.device.Availability;
import org.multigpulab.device.Backends;
import org.multigpulab.device.Device;
import org.multigpulab.device.DeviceRequest;
import org.multigpulab.device.conformance.KernelConformanceKit;

/**
 * The conformance kit on {@code opencl:0} (PoCL on the processor in CI). In CI a missing OpenCL platform fails
 * the test, so these tests never silently skip there; elsewhere they are skipped with the reason.
 */
class OpenClConformanceTest extends KernelConformanceKit {

    static void requireOpenCl() {
        Availability a = Backends.find("opencl").availability();
        if (System.getenv("CI") != null) {
            assertTrue(a.available(), "CI must run the OpenCL tests: " + a.reason());
        } else {
            assumeTrue(a.available(), a.reason());
        }
    }

    @Override
    protected Device openDevice() {
        requireOpenCl();
        return Backends.open("opencl", DeviceRequest.of(1)).getFirst();
    }
}
