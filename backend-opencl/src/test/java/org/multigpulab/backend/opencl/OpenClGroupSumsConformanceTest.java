package org.multigpulab.backend.opencl;

import java.util.Set;
import org.multigpulab.device.Device;
import org.multigpulab.device.DeviceId;
import org.multigpulab.device.KernelOp;
import org.multigpulab.device.conformance.KernelConformanceKit;

/**
 * The conformance kit on {@code opencl:0} with the sums over a batch taken by work-groups, as a GPU takes them
 * ({@link OpenClKernels#SUMMED_BY_GROUPS}): PoCL in CI is a processor, whose device sums one work-item per
 * output, so without this test the kernels every GPU runs would go untested there.
 */
class OpenClGroupSumsConformanceTest extends KernelConformanceKit {

    @Override
    protected Device openDevice() {
        OpenClConformanceTest.requireOpenCl();
        return new OpenClDevice(
                DeviceId.of(OpenClBackend.NAME, 0), Discovery.devices().getFirst(), true);
    }

    @Override
    protected Set<Class<? extends KernelOp.Call>> leftOut() {
        return Set.of(KernelOp.MaxPoolForward.class, KernelOp.MaxPoolBackward.class);
    }
}
