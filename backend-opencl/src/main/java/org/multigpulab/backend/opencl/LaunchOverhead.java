package org.multigpulab.backend.opencl;

import java.util.Arrays;
import java.util.List;
import org.multigpulab.device.Buffer;
import org.multigpulab.device.Device;
import org.multigpulab.device.DeviceRequest;
import org.multigpulab.device.KernelOp;
import org.multigpulab.device.KernelOp.Fill;

/**
 * Measures what one kernel launch costs on {@code opencl:0}, beyond the kernel's own work: a one-element
 * {@code fill} enqueued many times, timed on the host (enqueue to finish) and on the device (event counters).
 * Run: {@code java --enable-native-access=ALL-UNNAMED -cp "lessons/target/lib/*"
 * org.multigpulab.backend.opencl.LaunchOverhead}.
 */
public final class LaunchOverhead {

    private LaunchOverhead() {}

    public static void main(String[] args) {
        int launches = 2000;
        List<Device> devices = new OpenClBackend().open(DeviceRequest.of(1));
        OpenClDevice device = (OpenClDevice) devices.getFirst();
        try (Buffer one = device.allocate(1)) {
            double[] hostMicros = new double[7];
            for (int round = 0; round < hostMicros.length + 2; round++) {
                long start = System.nanoTime();
                for (int i = 0; i < launches; i++) {
                    device.kernels().launch(new Fill(1f, one, 1));
                }
                device.synchronize();
                if (round >= 2) { // two rounds of warm-up
                    hostMicros[round - 2] = (System.nanoTime() - start) / 1e3 / launches;
                }
            }
            long[] deviceNanos = new long[101];
            for (int i = 0; i < deviceNanos.length; i++) {
                deviceNanos[i] = device.profile(KernelOp.of(KernelOp.Fill.class), 1, 1f, one);
            }
            Arrays.sort(hostMicros);
            Arrays.sort(deviceNanos);
            System.out.printf(
                    "%s: %.1f µs per launch on the host (enqueue to finish, median of %d rounds of %d),"
                            + " %.1f µs on the device (event counters, median of %d)%n",
                    device.info().description(),
                    hostMicros[hostMicros.length / 2],
                    hostMicros.length,
                    launches,
                    deviceNanos[deviceNanos.length / 2] / 1e3,
                    deviceNanos.length);
        } finally {
            device.close();
        }
    }
}
