package org.multigpulab.backend.cpu;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.sun.management.HotSpotDiagnosticMXBean;
import com.sun.management.VMOption;
import java.lang.management.ManagementFactory;
import jdk.incubator.vector.FloatVector;
import org.junit.jupiter.api.Test;
import org.multigpulab.device.Backends;
import org.multigpulab.device.Device;
import org.multigpulab.device.DeviceRequest;
import org.multigpulab.device.conformance.KernelConformanceKit;

/**
 * The conformance kit on {@code cpu:0}. The build runs it again with {@code -XX:MaxVectorSize=32} and {@code 16},
 * as on processors with AVX2 or only SSE; this test checks that the kernels then really use vectors of that size.
 */
class CpuConformanceTest extends KernelConformanceKit {

    @Override
    protected Device openDevice() {
        return Backends.open("cpu", DeviceRequest.of(1)).getFirst();
    }

    @Test
    void kernelsUseTheVectorSizeThisJvmWasGiven() {
        VMOption max = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class)
                .getVMOption("MaxVectorSize");
        int bytes = Gemm.species().vectorByteSize();
        if (max.getOrigin() == VMOption.Origin.VM_CREATION) {
            assertEquals(
                    Integer.parseInt(max.getValue()),
                    bytes,
                    "-XX:MaxVectorSize=" + max.getValue() + " but the kernels use " + bytes + "-byte vectors");
        } else {
            assertEquals(FloatVector.SPECIES_PREFERRED.vectorByteSize(), bytes, "the processor's widest vectors");
        }
        System.out.println("cpu kernels: " + bytes * 8 + "-bit vectors (MaxVectorSize " + max.getValue() + ", "
                + max.getOrigin() + ")");
    }
}
