package org.multigpulab.bench;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import org.multigpulab.device.Backends;
import org.multigpulab.device.Device;
import org.multigpulab.device.DeviceRequest;
import org.multigpulab.device.KernelOp;
import org.multigpulab.device.Kernels;

/**
 * Times kernels one after another in one JVM, in the order given, as a training step runs them. JMH gives each
 * kernel a JVM of its own, which hides what running one kernel does to the compiled code of another (the cpu
 * backend's filter gradient once made every other matrix multiply slower that way). Arguments: a backend, then
 * names of {@link LeNetKernels} or {@link ResNetKernels} calls, each as often as wanted; prints each one's median over 30 calls after
 * 20 of warm-up.
 */
public final class KernelSequenceMain {

    private static final int WARMUP = 20;
    private static final int CALLS = 30;

    public static void main(String[] args) {
        if (args.length < 2) {
            System.err.println("usage: KernelSequenceMain BACKEND KERNEL [KERNEL ...]");
            System.exit(2);
        }
        try (Device device = Backends.open(args[0], DeviceRequest.of(1)).getFirst()) {
            Kernels kernels = device.kernels();
            Map<String, KernelOp.Call> calls = new HashMap<>(LeNetKernels.on(device));
            for (String name : Arrays.copyOfRange(args, 1, args.length)) {
                KernelOp.Call call = name.startsWith("resnet_")
                        ? calls.computeIfAbsent(name, n -> ResNetKernels.on(device, n))
                        : calls.get(name);
                if (call == null) {
                    System.err.println("no kernel " + name + "; there are " + calls.keySet());
                    System.exit(2);
                }
                for (int i = 0; i < WARMUP; i++) {
                    kernels.launch(call);
                    device.synchronize();
                }
                long[] nanos = new long[CALLS];
                for (int i = 0; i < CALLS; i++) {
                    long start = System.nanoTime();
                    kernels.launch(call);
                    device.synchronize();
                    nanos[i] = System.nanoTime() - start;
                }
                Arrays.sort(nanos);
                System.out.printf(Locale.ROOT, "%-24s %9.1f µs (median of %d)%n", name, nanos[CALLS / 2] / 1e3, CALLS);
            }
        }
    }
}
