package org.multigpulab.backend.sim;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.IntStream;
import org.multigpulab.device.BiasShape;
import org.multigpulab.device.Buffer;
import org.multigpulab.device.ConvShape;
import org.multigpulab.device.Device;
import org.multigpulab.device.KernelOp;

/**
 * The {@code host} profile: the physical device underneath, measured, so that simulated time can be checked
 * against the wall clock of this machine. Every kernel is timed at several sizes ({@link CalibrationCases}): a
 * layer's calls at the batches a shard takes, an element-wise kernel from a thousand elements to millions. A call
 * of a measured layer or element-wise kind is charged from its {@link CostTable}, read between the sizes measured;
 * a call of a layer not measured, from its kind's {@link KernelCost} (a fixed cost per call plus costs per FLOP
 * and per byte, fitted over every shape), so that a small call is charged its overhead and a large one its rate.
 * Copies between buffers and uploads from the host are fitted as a kind is.
 *
 * <p>First every case runs in passes until the JIT has compiled them all; then the cases are timed in passes,
 * each case once per pass, and each takes its median over the passes (a lower quartile would be luckier than the
 * kernels of a training step are).
 */
record HostCalibration(
        Map<String, CostTable> tables,
        Map<String, KernelCost> kernels,
        KernelCost copy,
        KernelCost upload,
        double measureSec) {

    /** Passes over every call at least, and at most; between the two, as many as the budget allows. */
    private static final int MIN_PASSES = 7;

    private static final int MAX_PASSES = 41;
    /** Stop measuring after this long, the warm-up included, once the fewest passes are done. */
    private static final double BUDGET_SEC = 2;
    /** Warm-up ends when a pass compiles nothing and takes this close to the one before, or after the most passes. */
    private static final double SETTLED = 0.05;

    private static final int MAX_WARM_UP_PASSES = 40;

    static HostCalibration measure(Device physical) {
        long start = System.nanoTime();
        try (CalibrationCases cases = new CalibrationCases(physical);
                Buffer x = physical.allocate(COPY_LARGE);
                Buffer y = physical.allocate(COPY_LARGE);
                Buffer small = physical.allocate(COPY_SMALL);
                Buffer smallToo = physical.allocate(COPY_SMALL)) {
            float[] host = new float[COPY_LARGE];
            List<Runnable> work = new ArrayList<>();
            List<Long> sizes = new ArrayList<>();
            for (KernelOp.Call call : cases.calls()) {
                work.add(() -> physical.kernels().launch(call));
                sizes.add(call.flops() + call.bytes());
            }
            work.add(() -> physical.copyFromPeer(small, smallToo));
            work.add(() -> physical.copyFromPeer(x, y));
            work.add(() -> physical.upload(host, 0, small));
            work.add(() -> physical.upload(host, 0, x));
            sizes.addAll(List.of(4L * COPY_SMALL, 4L * COPY_LARGE, 4L * COPY_SMALL, 4L * COPY_LARGE));
            double[] seconds = timeInPasses(work, sizes, physical, start);
            int n = cases.calls().size();
            Map<String, List<KernelCost.Sample>> samples = new LinkedHashMap<>();
            Map<String, List<CostTable.Point>> points = new LinkedHashMap<>();
            for (int i = 0; i < n; i++) {
                KernelOp.Call call = cases.calls().get(i);
                samples.computeIfAbsent(kind(call), k -> new ArrayList<>())
                        .add(new KernelCost.Sample(call.flops(), call.bytes(), seconds[i]));
                points.computeIfAbsent(shape(call), k -> new ArrayList<>())
                        .add(new CostTable.Point(size(call), seconds[i]));
            }
            Map<String, KernelCost> kernels = new LinkedHashMap<>();
            samples.forEach((kind, s) -> kernels.put(kind, KernelCost.fit(s)));
            Map<String, CostTable> tables = new LinkedHashMap<>();
            points.forEach((shape, p) -> tables.put(shape, CostTable.of(p)));
            KernelCost copy = KernelCost.fit(List.of(
                    new KernelCost.Sample(0, 4L * COPY_SMALL, seconds[n]),
                    new KernelCost.Sample(0, 4L * COPY_LARGE, seconds[n + 1])));
            KernelCost upload = KernelCost.fit(List.of(
                    new KernelCost.Sample(0, 4L * COPY_SMALL, seconds[n + 2]),
                    new KernelCost.Sample(0, 4L * COPY_LARGE, seconds[n + 3])));
            return new HostCalibration(tables, kernels, copy, upload, (System.nanoTime() - start) / 1e9);
        }
    }

    private static final int COPY_SMALL = 1 << 10;
    private static final int COPY_LARGE = 1 << 20;

    /** What a kernel's costs are kept under: its name, and for a GEMM which operands are transposed. */
    static String kind(KernelOp.Call call) {
        if (call instanceof KernelOp.Gemm g) {
            return call.op().kernelName() + "_" + (g.transA() ? "t" : "n") + (g.transB() ? "t" : "n");
        }
        return call.op().kernelName();
    }

    /**
     * What the costs of one layer's calls are kept under, whatever their batch: a convolution's shape without
     * the batch, a GEMM's two sizes that are not the batch as the trainer places it (the rows of {@code y = x·w}
     * and {@code dx = dy·wᵀ}, the inner size of {@code dw = xᵀ·dy}), or {@code norm} for a vector's product with
     * itself (a gradient's squared norm, whatever its length); for a bias, whether it is a dense layer's
     * (one per element of a row) or a convolution's (one per plane), which the kernels loop over differently; the
     * kind for every other kernel.
     */
    static String shape(KernelOp.Call call) {
        return switch (call) {
            case KernelOp.Conv2dForward c -> kind(call) + "@" + layer(c.s());
            case KernelOp.Conv2dBiasForward c -> kind(call) + "@" + layer(c.s());
            case KernelOp.Conv2dBackwardData c -> kind(call) + "@" + layer(c.s());
            case KernelOp.Conv2dBackwardFilter c -> kind(call) + "@" + layer(c.s());
            case KernelOp.Conv2dBiasReluAvgPoolForward c -> kind(call) + "@" + layer(c.s().conv());
            case KernelOp.Conv2dBiasReluAvgPoolBackward c -> kind(call) + "@" + layer(c.s().conv());
            case KernelOp.Gemm g when g.m() == 1 && g.n() == 1 -> kind(call) + "@norm";
            case KernelOp.Gemm g when g.transA() -> kind(call) + "@" + g.m() + "x" + g.n();
            case KernelOp.Gemm g -> kind(call) + "@" + g.n() + "x" + g.k();
            case KernelOp.BiasAdd b -> kind(call) + "@" + biasLayout(b.s());
            case KernelOp.BiasAddBackward b -> kind(call) + "@" + biasLayout(b.s());
            case KernelOp.AvgPoolForward _,
                    KernelOp.AvgPoolBackward _,
                    KernelOp.MaxPoolForward _,
                    KernelOp.MaxPoolBackward _,
                    KernelOp.ReluForward _,
                    KernelOp.ReluBackward _,
                    KernelOp.ReluAvgPoolForward _,
                    KernelOp.ReluAvgPoolBackward _,
                    KernelOp.SoftmaxCrossEntropyForward _,
                    KernelOp.SoftmaxCrossEntropyBackward _,
                    KernelOp.Axpy _,
                    KernelOp.Scale _,
                    KernelOp.Add _,
                    KernelOp.Fill _,
                    KernelOp.SgdStep _,
                    KernelOp.AdamStep _,
                    KernelOp.SquaredDeviations _,
                    KernelOp.BatchNormForward _,
                    KernelOp.BatchNormRunningUpdate _,
                    KernelOp.BatchNormBackwardReduce _,
                    KernelOp.BatchNormBackwardData _,
                    KernelOp.ArgmaxMatches _ -> kind(call);
        };
    }

    private static String biasLayout(BiasShape s) {
        return s.inner() == 1 ? "dense" : "planes";
    }

    /** {@code 20x13x13_50x5x5}, with {@code _s2p1} after it for another stride than 1 or with padding. */
    private static String layer(ConvShape s) {
        String layer = s.inChannels() + "x" + s.height() + "x" + s.width() + "_" + s.outChannels() + "x"
                + s.kernelHeight() + "x" + s.kernelWidth();
        return s.stride() == 1 && s.padding() == 0 ? layer : layer + "_s" + s.stride() + "p" + s.padding();
    }

    /**
     * What a call's table is read by: a layer's FLOPs (its calls at several batches do the same work per image,
     * and how fast depends on how many images), an element-wise kernel's bytes (its FLOPs per byte are fixed).
     */
    static double size(KernelOp.Call call) {
        return sizedByFlops(call.op()) ? call.flops() : call.bytes();
    }

    /** What the table kept under {@code shape} is read by, as {@link #size} counts it: {@code flops} or {@code bytes}. */
    static String sizeUnit(String shape) {
        String kind = shape.split("@")[0];
        boolean byFlops = KernelOp.all().stream()
                .filter(op -> kind.equals(op.kernelName()) || kind.startsWith(op.kernelName() + "_"))
                .anyMatch(HostCalibration::sizedByFlops);
        return byFlops ? "flops" : "bytes";
    }

    /** The kernels whose calls are layers, sized by their FLOPs: convolutions and matrix products. */
    private static boolean sizedByFlops(KernelOp op) {
        return BY_FLOPS.contains(op.type());
    }

    private static final Set<Class<? extends KernelOp.Call>> BY_FLOPS = Set.of(
            KernelOp.Conv2dForward.class,
            KernelOp.Conv2dBiasForward.class,
            KernelOp.Conv2dBackwardData.class,
            KernelOp.Conv2dBackwardFilter.class,
            KernelOp.Conv2dBiasReluAvgPoolForward.class,
            KernelOp.Conv2dBiasReluAvgPoolBackward.class,
            KernelOp.Gemm.class);

    /**
     * The simulated seconds of {@code call} on this device: read from its layer's table (or its element-wise
     * kind's) where that was measured, else its kind's cost fitted over every shape measured.
     */
    double kernelSeconds(KernelOp.Call call) {
        CostTable table = tables.get(shape(call));
        if (table != null) {
            return table.seconds(size(call));
        }
        KernelCost cost = kernels.get(kind(call));
        if (cost == null) {
            throw new IllegalStateException("the host calibration has no measurement of " + kind(call));
        }
        return cost.seconds(call.flops(), call.bytes());
    }

    /**
     * Each call's median time over passes in which every call runs once, as a training step runs its kernels one
     * after another (a call repeated back to back would find its data in the cache and the pool's threads awake,
     * which a step's kernels do not): {@code MIN_PASSES} at least, then more until the budget is spent. A pass
     * runs the calls from the smallest {@code sizes} (FLOPs and bytes) to the largest, after an untimed run of the
     * smallest: a small call right after a large one that ran on every core waits several microseconds for the
     * processor to settle (docs/ARCHITECTURE.md, "The host profile"), which a call of its size in a step seldom
     * does.
     */
    private static double[] timeInPasses(List<Runnable> work, List<Long> sizes, Device device, long start) {
        int[] order = IntStream.range(0, work.size())
                .boxed()
                .sorted(Comparator.comparing(sizes::get))
                .mapToInt(Integer::intValue)
                .toArray();
        warmUp(work, device);
        List<double[]> passes = new ArrayList<>();
        while (passes.size() < MIN_PASSES || (passes.size() < MAX_PASSES && elapsed(start) < BUDGET_SEC)) {
            double[] pass = new double[work.size()];
            work.get(order[0]).run();
            device.synchronize();
            for (int i : order) {
                long t = System.nanoTime();
                work.get(i).run();
                device.synchronize();
                pass[i] = (System.nanoTime() - t) / 1e9;
            }
            passes.add(pass);
        }
        double[] median = new double[work.size()];
        for (int i = 0; i < median.length; i++) {
            int call = i;
            double[] times = passes.stream().mapToDouble(p -> p[call]).sorted().toArray();
            median[i] = times[times.length / 2];
        }
        return median;
    }

    /**
     * Runs every call, in passes, until the JIT is done with them: until a pass takes as long as the one before
     * it, within {@code SETTLED}, and the compilers' total time did not grow during it. A kernel compiled from
     * its small calls alone is not yet the code the large ones get: its loops are compiled again once they
     * have run long, so the warm-up runs the sizes that will be measured.
     */
    private static void warmUp(List<Runnable> work, Device device) {
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        boolean observable = jit != null && jit.isCompilationTimeMonitoringSupported();
        long previous = Long.MAX_VALUE;
        for (int pass = 0; pass < MAX_WARM_UP_PASSES; pass++) {
            long compiled = observable ? jit.getTotalCompilationTime() : 0;
            long t = System.nanoTime();
            for (Runnable call : work) {
                call.run();
                device.synchronize();
            }
            long took = System.nanoTime() - t;
            boolean quiet = !observable || jit.getTotalCompilationTime() == compiled;
            if (quiet && Math.abs(took - previous) < SETTLED * previous) {
                return;
            }
            previous = took;
        }
    }

    private static double elapsed(long start) {
        return (System.nanoTime() - start) / 1e9;
    }

    DeviceProfile profile(long memoryBytes) {
        return DeviceProfile.measured(this, memoryBytes);
    }

    /** Logical GPUs on one host reach each other through its memory: at the rate of a copy, from the host at an upload's. */
    Topology topology() {
        return new Topology(
                Topology.HOST,
                "host memory",
                link(copy),
                link(upload),
                false,
                Topology.Transport.HOST_MEMORY,
                1 / copy.secPerByte(),
                // across nodes only the path to the network card counts, through no slower link than PCIe 5
                new Fabric.Pcie(5, false, 1));
    }

    private static Link link(KernelCost cost) {
        return new Link(cost.fixedSec(), 1 / cost.secPerByte());
    }
}
