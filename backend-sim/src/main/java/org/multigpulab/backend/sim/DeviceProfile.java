package org.multigpulab.backend.sim;

import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;
import org.multigpulab.device.DeviceException;
import org.multigpulab.device.KernelOp;

/**
 * What the cost model needs to know of a GPU: its FP32 rate, its memory bandwidth and capacity, the host time
 * to launch one kernel, and the interconnect it usually comes with. A kernel takes
 * {@code max(flops / flopsPerSec, bytes / memoryBytesPerSec)}: it is bound by arithmetic or by memory. The
 * {@code host} profile is {@code measured} instead: each kernel costs what its calibration measured
 * ({@link HostCalibration#kernelSeconds}), and the rates are the asymptotic ones of a convolution and an add (what
 * a collective's reductions use).
 */
record DeviceProfile(
        String name,
        String displayName,
        double flopsPerSec,
        double memoryBytesPerSec,
        long memoryBytes,
        double launchSec,
        String defaultTopology,
        HostCalibration measured) {

    /** A profile from datasheet figures, timed by the roofline. */
    DeviceProfile(
            String name,
            String displayName,
            double flopsPerSec,
            double memoryBytesPerSec,
            long memoryBytes,
            double launchSec,
            String defaultTopology) {
        this(name, displayName, flopsPerSec, memoryBytesPerSec, memoryBytes, launchSec, defaultTopology, null);
    }

    private static final double T = 1e12;
    private static final double G = 1e9;
    private static final long GIB = 1L << 30;
    /**
     * Host time of one {@code cudaLaunchKernel}, a few microseconds on every generation (NVIDIA's CUDA best
     * practices guide); the model charges it to the thread that issues the work.
     */
    private static final double CUDA_LAUNCH = 5e-6;

    /** Datasheet figures: FP32 without tensor cores, the memory of the common variant. */
    static final List<DeviceProfile> GPUS = List.of(
            // NVIDIA T4 datasheet: 8.1 TFLOPS FP32, 320 GB/s GDDR6, 16 GB; PCIe 3 x16 (Colab's GPU)
            new DeviceProfile("t4", "T4", 8.1 * T, 320 * G, 16 * GIB, CUDA_LAUNCH, "pcie3"),
            // V100 SXM2 datasheet: 15.7 TFLOPS FP32, 900 GB/s HBM2, 16 GB; NVLink 2 in a DGX-1
            new DeviceProfile("v100", "V100-SXM2", 15.7 * T, 900 * G, 16 * GIB, CUDA_LAUNCH, "nvlink2"),
            // A100 SXM4 80GB datasheet: 19.5 TFLOPS FP32, 2039 GB/s HBM2e; NVLink 3 through NVSwitch
            new DeviceProfile("a100", "A100-SXM4", 19.5 * T, 2039 * G, 80 * GIB, CUDA_LAUNCH, "nvlink3"),
            // H100 SXM5 datasheet: 67 TFLOPS FP32, 3.35 TB/s HBM3, 80 GB; NVLink 4 through NVSwitch
            new DeviceProfile("h100", "H100-SXM", 67 * T, 3350 * G, 80 * GIB, CUDA_LAUNCH, "nvlink4"),
            // H200 SXM datasheet: 67 TFLOPS FP32, 4.8 TB/s HBM3e, 141 GB; NVLink 4 through NVSwitch
            new DeviceProfile("h200", "H200", 67 * T, 4800 * G, 141_000_000_000L, CUDA_LAUNCH, "nvlink4"),
            // GeForce RTX 2080 Ti (Turing whitepaper): 13.4 TFLOPS FP32, 616 GB/s GDDR6, 11 GB; PCIe 3, no P2P
            new DeviceProfile("rtx2080ti", "RTX 2080 Ti", 13.4 * T, 616 * G, 11 * GIB, CUDA_LAUNCH, "pcie3-host"),
            // GeForce RTX 4090 (Ada whitepaper): 82.6 TFLOPS FP32, 1008 GB/s GDDR6X, 24 GB; PCIe 4, no NVLink
            new DeviceProfile("rtx4090", "RTX 4090", 82.6 * T, 1008 * G, 24 * GIB, CUDA_LAUNCH, "pcie4"),
            // GeForce RTX 5090 (Blackwell whitepaper): 104.8 TFLOPS FP32, 1792 GB/s GDDR7, 32 GB; PCIe 5, no P2P
            new DeviceProfile("rtx5090", "RTX 5090", 104.8 * T, 1792 * G, 32 * GIB, CUDA_LAUNCH, "pcie5-host"));

    static final String HOST = "host";

    /** The profile called {@code name}; {@code host} is measured, so it is made by {@link HostCalibration}. */
    static DeviceProfile named(String name) {
        String key = name.toLowerCase(Locale.ROOT);
        return GPUS.stream()
                .filter(p -> p.name.equals(key))
                .findFirst()
                .orElseThrow(() -> new DeviceException("unknown device profile '" + name + "'; choose " + names()));
    }

    static String names() {
        return gpuNames() + " or " + HOST;
    }

    /** The GPUs' profiles, without the measured {@code host} one. */
    static String gpuNames() {
        return GPUS.stream().map(DeviceProfile::name).collect(Collectors.joining(", "));
    }

    /**
     * The {@code host} profile of a calibrated device. Its launch costs the host nothing beyond the kernel's
     * fixed cost, which was measured from the host: on the processor, the thread that launches also computes.
     */
    static DeviceProfile measured(HostCalibration calibration, long memoryBytes) {
        KernelCost conv = calibration
                .kernels()
                .get(KernelOp.of(KernelOp.Conv2dForward.class).kernelName());
        KernelCost add =
                calibration.kernels().get(KernelOp.of(KernelOp.Add.class).kernelName());
        return new DeviceProfile(
                HOST, "host", 1 / conv.secPerFlop(), 1 / add.secPerByte(), memoryBytes, 0, Topology.HOST, calibration);
    }

    DeviceProfile withMemory(long bytes) {
        return new DeviceProfile(
                name, displayName, flopsPerSec, memoryBytesPerSec, bytes, launchSec, defaultTopology, measured);
    }

    /**
     * The calls {@code call} is charged as: on the measured host, the call as it runs here; on a GPU, the calls of
     * the separate ops a fused one stands for, as the notebook's PyTorch launches ReLU and pooling apart, so that
     * fusing them here leaves the simulated time of the notebook's GPUs as it was.
     */
    List<KernelOp.Call> charged(KernelOp.Call call) {
        return measured != null ? List.of(call) : call.unfused();
    }

    double kernelSeconds(KernelOp.Call call) {
        return measured != null
                ? measured.kernelSeconds(call)
                : Math.max(call.flops() / flopsPerSec, call.bytes() / memoryBytesPerSec);
    }
}
