package org.multigpulab.backend.sim;

import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;
import org.multigpulab.device.DeviceException;
import org.multigpulab.device.KernelOp;

/**
 * What the cost model needs to know of a GPU: its FP32 rate, its memory bandwidth and capacity, its multiprocessors,
 * the host time to launch one kernel, and the interconnect it usually comes with. A kernel takes
 * {@code kernelSec + max(flops / (flopsPerSec · flopsShare · u), bytes / memoryBytesPerSec)}: the device's fixed
 * time for any kernel (its start on the multiprocessors and its end), then bound by arithmetic or by memory, where
 * {@code flopsShare} is the share of the datasheet's FP32 rate that a library's kernels reach on a full wave and
 * {@code u} the share of the multiprocessors a convolution or a matrix product keeps busy ({@link GemmTiling}), 1
 * for the rest. The
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
        int multiprocessors,
        double flopsShare,
        double kernelSec,
        String defaultTopology,
        HostCalibration measured) {

    /**
     * A profile from datasheet figures, timed by the roofline, reaching {@code flopsShare} of its FP32 rate, each
     * kernel's fixed time the fitted one.
     */
    DeviceProfile(
            String name,
            String displayName,
            double flopsPerSec,
            double memoryBytesPerSec,
            long memoryBytes,
            int multiprocessors,
            double flopsShare,
            String defaultTopology) {
        this(
                name,
                displayName,
                flopsPerSec,
                memoryBytesPerSec,
                memoryBytes,
                CUDA_LAUNCH,
                multiprocessors,
                flopsShare,
                KERNEL_SEC,
                defaultTopology,
                null);
    }

    private static final double T = 1e12;
    private static final double G = 1e9;
    private static final long GIB = 1L << 30;
    /**
     * Host time of one {@code cudaLaunchKernel}, a few microseconds on every generation (NVIDIA's CUDA best
     * practices guide); the model charges it to the thread that issues the work.
     */
    private static final double CUDA_LAUNCH = 5e-6;

    /**
     * The device's time for a kernel beyond its arithmetic and its memory traffic, the same on every GPU: fitted on
     * the notebook's step measured kernel by kernel on an H200, at 256 and 32 images ({@code ./lab simulate
     * --fit-kernels}); it also holds the share of PyTorch's kernels the model has no op for (101 a step there
     * against the model's 48: cuDNN's layout changes and split-K sums, fills, SGD's element-wise ops).
     */
    static final double KERNEL_SEC = 3.70e-6;

    /**
     * The share of the FP32 rate that cuDNN's kernels reach on GH100's multiprocessors (the H100's and the H200's),
     * fitted with {@link #KERNEL_SEC}: its datasheet's 67 TFLOPS count 128 FP32 lanes a multiprocessor issuing every
     * cycle, and the notebook's convolutions there ran at 15–24 TFLOP/s (docs/performance-log.md, "The first GPU").
     * The others are taken at their full rate on a full wave: the book's V100 runs of ResNet-18 land in their
     * published range so; no other GPU's kernels have been measured.
     */
    static final double GH100_FLOPS_SHARE = 0.380;

    /** The sim options that set {@link #kernelSec} (µs) and {@link #flopsShare}, for every GPU. */
    static final String KERNEL_US = "kernel-us", FLOPS_SHARE = "flops-share";

    /**
     * Datasheet figures: FP32 without tensor cores, the memory of the common variant, the multiprocessors
     * (streaming multiprocessors) enabled.
     */
    static final List<DeviceProfile> GPUS = List.of(
            // NVIDIA T4 datasheet: 8.1 TFLOPS FP32, 320 GB/s GDDR6, 16 GB, 40 SMs; PCIe 3 x16 (Colab's GPU)
            new DeviceProfile("t4", "T4", 8.1 * T, 320 * G, 16 * GIB, 40, 1, "pcie3"),
            // V100 SXM2 datasheet: 15.7 TFLOPS FP32, 900 GB/s HBM2, 16 GB, 80 SMs; NVLink 2 in a DGX-1
            new DeviceProfile("v100", "V100-SXM2", 15.7 * T, 900 * G, 16 * GIB, 80, 1, "nvlink2"),
            // A100 SXM4 80GB datasheet: 19.5 TFLOPS FP32, 2039 GB/s HBM2e, 108 SMs; NVLink 3 through NVSwitch
            new DeviceProfile("a100", "A100-SXM4", 19.5 * T, 2039 * G, 80 * GIB, 108, 1, "nvlink3"),
            // H100 SXM5 datasheet: 67 TFLOPS FP32, 3.35 TB/s HBM3, 80 GB, 132 SMs; NVLink 4 through NVSwitch
            new DeviceProfile("h100", "H100-SXM", 67 * T, 3350 * G, 80 * GIB, 132, GH100_FLOPS_SHARE, "nvlink4"),
            // H200 SXM datasheet: 67 TFLOPS FP32, 4.8 TB/s HBM3e, 141 GB, 132 SMs (the H100's GH100); NVLink 4 through
            // NVSwitch
            new DeviceProfile("h200", "H200", 67 * T, 4800 * G, 141_000_000_000L, 132, GH100_FLOPS_SHARE, "nvlink4"),
            // GeForce RTX 2080 Ti (Turing whitepaper): 13.4 TFLOPS FP32, 616 GB/s GDDR6, 11 GB, 68 SMs; PCIe 3, no P2P
            new DeviceProfile("rtx2080ti", "RTX 2080 Ti", 13.4 * T, 616 * G, 11 * GIB, 68, 1, "pcie3-host"),
            // GeForce RTX 4090 (Ada whitepaper): 82.6 TFLOPS FP32, 1008 GB/s GDDR6X, 24 GB, 128 SMs; PCIe 4, no NVLink
            new DeviceProfile("rtx4090", "RTX 4090", 82.6 * T, 1008 * G, 24 * GIB, 128, 1, "pcie4"),
            // GeForce RTX 5090 (Blackwell whitepaper): 104.8 TFLOPS FP32, 1792 GB/s GDDR7, 32 GB, 170 SMs; PCIe 5, no
            // P2P
            new DeviceProfile("rtx5090", "RTX 5090", 104.8 * T, 1792 * G, 32 * GIB, 170, 1, "pcie5-host"));

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
                HOST,
                "host",
                1 / conv.secPerFlop(),
                1 / add.secPerByte(),
                memoryBytes,
                0,
                0,
                1,
                0,
                Topology.HOST,
                calibration);
    }

    DeviceProfile withMemory(long bytes) {
        return new DeviceProfile(
                name,
                displayName,
                flopsPerSec,
                memoryBytesPerSec,
                bytes,
                launchSec,
                multiprocessors,
                flopsShare,
                kernelSec,
                defaultTopology,
                measured);
    }

    /** This GPU reaching {@code share} of its FP32 rate, with {@code seconds} of fixed device time a kernel. */
    DeviceProfile withKernelFigures(double share, double seconds) {
        return new DeviceProfile(
                name,
                displayName,
                flopsPerSec,
                memoryBytesPerSec,
                memoryBytes,
                launchSec,
                multiprocessors,
                share,
                seconds,
                defaultTopology,
                measured);
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
        if (measured != null) {
            return measured.kernelSeconds(call);
        }
        double rate = flopsPerSec
                * flopsShare
                * GemmTiling.of(call).map(g -> g.utilization(multiprocessors)).orElse(1.0);
        return kernelSec + Math.max(call.flops() / rate, call.bytes() / memoryBytesPerSec);
    }
}
