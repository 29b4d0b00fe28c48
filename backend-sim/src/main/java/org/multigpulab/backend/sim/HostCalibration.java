package org.multigpulab.backend.sim;

import java.util.Arrays;
import org.multigpulab.device.Buffer;
import org.multigpulab.device.ConvShape;
import org.multigpulab.device.Device;
import org.multigpulab.device.KernelOp;
import org.multigpulab.device.Kernels;

/**
 * The {@code host} profile: the physical device underneath, measured when the devices are opened, so that
 * simulated time can be checked against the wall clock of this machine. It times the LeNet's largest
 * convolution (conv2, where nine tenths of the FLOPs are), a memory-bound kernel, an empty launch and a copy,
 * each the median of several
 * runs after a warm-up; under a second in all.
 */
record HostCalibration(double flopsPerSec, double memoryBytesPerSec, double launchSec, double copyBytesPerSec) {

    private static final int RUNS = 9;
    private static final long WARM_UP_NANOS = 150_000_000;
    // conv2 on a shard of 128 images: 20 channels of 13×13 in, 50 filters of 5×5, 9×9 out
    private static final ConvShape CONV2 = new ConvShape(128, 20, 13, 13, 50, 5, 5);
    private static final int STREAM = 1 << 20;

    static HostCalibration measure(Device physical) {
        Kernels k = physical.kernels();
        try (Buffer in = physical.allocate(CONV2.inputLength());
                Buffer w = physical.allocate(CONV2.filterLength());
                Buffer out = physical.allocate(CONV2.outputLength());
                Buffer x = physical.allocate(STREAM);
                Buffer y = physical.allocate(STREAM);
                Buffer z = physical.allocate(STREAM)) {
            double conv = median(() -> k.conv2dForward(in, w, out, CONV2), physical);
            double stream = median(() -> k.add(x, y, z, STREAM), physical);
            double launch = median(() -> k.fill(0f, x, 1), physical);
            double copy = median(() -> physical.copyFromPeer(x, y), physical);
            return new HostCalibration(
                    new KernelOp.Conv2dForward(in, w, out, CONV2).flops() / conv,
                    new KernelOp.Add(x, y, z, STREAM).bytes() / stream,
                    launch,
                    (double) STREAM * Float.BYTES / copy);
        }
    }

    private static double median(Runnable work, Device device) {
        // first let the JIT compile the kernel, as it will have during training
        for (long until = System.nanoTime() + WARM_UP_NANOS; System.nanoTime() < until; ) {
            work.run();
            device.synchronize();
        }
        double[] seconds = new double[RUNS];
        for (int i = 0; i < RUNS; i++) {
            long start = System.nanoTime();
            work.run();
            device.synchronize();
            seconds[i] = (System.nanoTime() - start) / 1e9;
        }
        Arrays.sort(seconds);
        return seconds[RUNS / 2];
    }

    DeviceProfile profile(long memoryBytes) {
        return new DeviceProfile(
                DeviceProfile.HOST, "host", flopsPerSec, memoryBytesPerSec, memoryBytes, launchSec, Topology.HOST);
    }

    /** Logical GPUs on one host reach each other through its memory, at the rate of a copy. */
    Topology topology() {
        Link memory = new Link(launchSec, copyBytesPerSec);
        return new Topology(
                Topology.HOST, "host memory", memory, memory, false, Topology.Transport.HOST_MEMORY, copyBytesPerSec);
    }
}
