package org.multigpulab.backend.opencl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.multigpulab.device.Backends;
import org.multigpulab.device.Buffer;
import org.multigpulab.device.ConvShape;
import org.multigpulab.device.Device;
import org.multigpulab.device.DeviceRequest;
import org.multigpulab.device.DeviceStats;
import org.multigpulab.device.KernelOp.Conv2dBackwardFilter;
import org.multigpulab.device.KernelOp.Fill;
import org.multigpulab.device.KernelTime;

/** The kernels' times in an {@code opencl} device's stats are the device's own, each on the call that made it. */
class DeviceTimesTest {

    /** The filter gradient of a convolution a million times the work of filling one float. */
    private static final ConvShape HEAVY = new ConvShape(64, 8, 32, 32, 16, 5, 5);

    @Test
    void eachCallHasItsOwnKernelsTimeOnTheDeviceWithNoneLostOrCountedTwice() {
        OpenClConformanceTest.requireOpenCl();
        try (Device device = Backends.open("opencl", DeviceRequest.of(1)).getFirst();
                Buffer one = device.allocate(1);
                Buffer x = device.upload(new float[HEAVY.inputLength()]);
                Buffer dy = device.upload(new float[HEAVY.outputLength()]);
                Buffer dw = device.allocate(HEAVY.filterLength())) {
            int fills = 3000; // more than DeviceTimes keeps before it reads the first half
            for (int i = 0; i < fills; i++) {
                device.kernels().launch(new Fill(i, one, 1));
                if (i % 1000 == 500) {
                    device.kernels().launch(new Conv2dBackwardFilter(x, dy, dw, HEAVY));
                }
            }
            // no synchronize: stats() waits for what was launched
            DeviceStats stats = device.stats();

            assertEquals(fills + 3, stats.kernelLaunches());
            KernelTime single = time(stats, "fill", 0);
            KernelTime heavy = time(stats, "conv2d_backward_filter", 2L * HEAVY.outputLength() * 8 * 25);
            assertEquals(fills, single.launches());
            assertEquals(3, heavy.launches());
            // The host enqueues either in about the same time; on the device one filter gradient is more work than
            // the 3,000 fills together, and a fill's time taken by the next call's would be on the wrong kernel.
            System.out.printf(
                    "%s: 3 filter gradients %.3f ms, %d fills %.3f ms%n",
                    device.id(), heavy.nanos() / 1e6, fills, single.nanos() / 1e6);
            assertTrue(heavy.nanos() > single.nanos(), heavy + " against " + single);
            assertTrue(single.nanos() > 0, single.toString());
        }
    }

    private static KernelTime time(DeviceStats stats, String kernel, long flops) {
        return stats.kernelTimes().stream()
                .filter(t -> t.kernel().equals(kernel) && t.flopsPerLaunch() == flops)
                .findFirst()
                .orElseThrow(
                        () -> new AssertionError(kernel + " of " + flops + " flops not in " + stats.kernelTimes()));
    }
}
