package org.multigpulab.backend.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.multigpulab.device.Backends;
import org.multigpulab.device.Buffer;
import org.multigpulab.device.CollectiveCostModel;
import org.multigpulab.device.ConvPoolShape;
import org.multigpulab.device.ConvShape;
import org.multigpulab.device.Device;
import org.multigpulab.device.DeviceException;
import org.multigpulab.device.DeviceRequest;
import org.multigpulab.device.KernelOp;
import org.multigpulab.device.KernelOp.Add;
import org.multigpulab.device.KernelOp.AvgPoolBackward;
import org.multigpulab.device.KernelOp.AvgPoolForward;
import org.multigpulab.device.KernelOp.BiasAddBackward;
import org.multigpulab.device.KernelOp.Conv2dBackwardFilter;
import org.multigpulab.device.KernelOp.Conv2dBiasForward;
import org.multigpulab.device.KernelOp.Conv2dBiasReluAvgPoolBackward;
import org.multigpulab.device.KernelOp.Conv2dBiasReluAvgPoolForward;
import org.multigpulab.device.KernelOp.Fill;
import org.multigpulab.device.KernelOp.Gemm;
import org.multigpulab.device.KernelOp.ReluAvgPoolBackward;
import org.multigpulab.device.KernelOp.ReluAvgPoolForward;
import org.multigpulab.device.KernelOp.ReluBackward;
import org.multigpulab.device.KernelOp.ReluForward;
import org.multigpulab.device.KernelOp.Scale;
import org.multigpulab.device.Kernels;
import org.multigpulab.device.PoolShape;
import org.multigpulab.device.StepPart;
import org.multigpulab.device.Timeline;

/** The cost model, one rule at a time, on T4s over PCIe 3 unless a test says otherwise. */
class SimTimelineTest {

    private static final DeviceProfile T4 = DeviceProfile.named("t4");
    private static final Link PCIE3 = Topology.named("pcie3").peer();
    private static final double EPS = 1e-12;

    private static List<Device> open(int count, String... options) {
        Map<String, String> map = new HashMap<>();
        for (int i = 0; i < options.length; i += 2) {
            map.put(options[i], options[i + 1]);
        }
        return Backends.open("sim", new DeviceRequest(count, map));
    }

    private static Timeline timeline(List<Device> devices) {
        return devices.getFirst().timeline().orElseThrow();
    }

    @Test
    void anNcclCallIsTimedAsOneByNcclsModelAndWhatReadsItsResultWaitsForIt() {
        List<Device> d = open(4);
        int n = 1 << 20;
        List<Buffer> b = d.stream().map(x -> x.allocate(n)).toList();
        Timeline t = timeline(d);
        t.asOneNcclCall(CollectiveCostModel.Collective.ALL_REDUCE, 4L * n, () -> {
            for (int i = 0; i < 4; i++) { // a ring of copies stands for the call's moves
                d.get((i + 1) % 4).copyFromPeer(b.get(i), b.get((i + 1) % 4));
            }
        });
        double nccl = new NcclSystem(
                        T4, Topology.named("pcie3"), Nic.defaultFor(T4), 1, 4, 1, 1, NcclFigures.defaults())
                .onDevices(CollectiveCostModel.Collective.ALL_REDUCE, 4L * n, "auto")
                .seconds();
        // the one host thread launches the call on each GPU, then it runs for NCCL's time, whatever its copies
        assertEquals(4 * T4.launchSec() + nccl, t.now(), EPS);
        assertEquals(
                4 * 4L * n,
                t.links().stream().mapToLong(Timeline.LinkTraffic::bytes).sum(),
                "bytes moved");
        Scale scale = new Scale(2f, b.get(1), n);
        d.get(1).kernels().launch(scale);
        assertEquals(4 * T4.launchSec() + nccl + T4.kernelSeconds(scale), t.now(), EPS);
    }

    @Test
    void aKernelTakesItsFlopsOrItsBytesWhicheverIsSlower() {
        List<Device> d = open(1);
        Buffer a = d.get(0).allocate(512 * 512),
                b = d.get(0).allocate(512 * 512),
                c = d.get(0).allocate(512 * 512);
        Timeline t = timeline(d);
        double before = t.now();
        d.get(0)
                .kernels()
                .launch(new Gemm(false, false, 512, 512, 512, 1f, a, b, 0f, c)); // 268 MFLOP, 3 MB: arithmetic
        double gemm = t.now() - before;
        KernelOp.Call g = new KernelOp.Gemm(false, false, 512, 512, 512, 1f, a, b, 0f, c);
        // 16 tiles of 128 × 128 on 40 multiprocessors, each sum split in 2: one wave of 32 blocks, 0.8 of the GPU
        double busy = GemmTiling.of(g).orElseThrow().utilization(T4.multiprocessors());
        assertEquals(0.8, busy, 1e-12);
        assertEquals(T4.launchSec() + T4.kernelSec() + g.flops() / (T4.flopsPerSec() * busy), gemm, EPS);
        before = t.now();
        d.get(0).kernels().launch(new Add(a, b, c, 512 * 512)); // 0.26 MFLOP, 3 MB: memory
        // the host issued it while the GEMM ran, so it follows the GEMM without a launch gap
        assertEquals(
                T4.kernelSec() + new KernelOp.Add(a, b, c, 512 * 512).bytes() / T4.memoryBytesPerSec(),
                t.now() - before,
                EPS);
    }

    /**
     * ReLU and pooling fused here are charged on a GPU as the two kernels the notebook's PyTorch launches, so that
     * the fusion leaves the notebook's simulated time as it was; each GPU runs one way.
     */
    @Test
    void aFusedKernelCostsAGpuWhatTheSeparateOpsWouldCost() {
        List<Device> d = open(2);
        PoolShape pool = new PoolShape(256 * 20, 26, 26, 2, 2);
        Buffer x0 = d.get(0).allocate(pool.inputLength()), y0 = d.get(0).allocate(pool.outputLength());
        Buffer dx0 = d.get(0).allocate(pool.inputLength()), dx1 = d.get(1).allocate(pool.inputLength());
        Buffer x1 = d.get(1).allocate(pool.inputLength()), y1 = d.get(1).allocate(pool.outputLength());
        Buffer a1 = d.get(1).allocate(pool.inputLength());
        d.get(0).kernels().launch(new ReluAvgPoolForward(x0, y0, pool));
        d.get(0).kernels().launch(new ReluAvgPoolBackward(x0, y0, dx0, pool));
        d.get(1).kernels().launch(new ReluForward(x1, a1, pool.inputLength()));
        d.get(1).kernels().launch(new AvgPoolForward(a1, y1, pool));
        d.get(1).kernels().launch(new AvgPoolBackward(y1, a1, pool));
        d.get(1).kernels().launch(new ReluBackward(x1, a1, dx1, pool.inputLength()));
        List<Timeline.DeviceTime> times = timeline(d).devices();
        assertEquals(times.get(1).computeSec(), times.get(0).computeSec(), EPS);
        assertEquals(times.get(1).kernels(), times.get(0).kernels(), "the kernels each GPU is charged with");
        assertEquals(4, times.get(0).kernels().size(), times.get(0).kernels().toString());
        assertEquals(d.get(1).stats().flops(), d.get(0).stats().flops(), "the FLOPs each GPU did");
    }

    /**
     * The first layer fused here (convolution, bias, ReLU, pooling) is charged on a GPU as the kernels the
     * notebook's PyTorch launches for it each way, and counts their FLOPs, not those of the convolution it
     * computes again.
     */
    @Test
    void aFusedFirstLayerCostsAGpuWhatItsSeparateOpsWouldCost() {
        List<Device> d = open(2);
        ConvPoolShape first = new ConvPoolShape(new ConvShape(64, 1, 28, 28, 20, 3, 3), 2, 2);
        ConvShape c = first.conv();
        Buffer[][] buffers = new Buffer[2][];
        for (int g = 0; g < 2; g++) {
            Device gpu = d.get(g);
            buffers[g] = new Buffer[] {
                gpu.allocate(c.inputLength()),
                gpu.allocate(c.filterLength()),
                gpu.allocate(c.outChannels()),
                gpu.allocate(first.outputLength()),
                gpu.allocate(c.filterLength()),
                gpu.allocate(c.outChannels())
            };
        }
        Buffer[] f = buffers[0], s = buffers[1];
        d.get(0).kernels().launch(new Conv2dBiasReluAvgPoolForward(f[0], f[1], f[2], f[3], first));
        d.get(0).kernels().launch(new Conv2dBiasReluAvgPoolBackward(f[0], f[1], f[2], f[3], f[4], f[5], first));
        Buffer conv = d.get(1).allocate(c.outputLength()), rectified = d.get(1).allocate(c.outputLength());
        Kernels k = d.get(1).kernels();
        k.launch(new Conv2dBiasForward(s[0], s[1], s[2], conv, c));
        k.launch(new ReluForward(conv, rectified, c.outputLength()));
        k.launch(new AvgPoolForward(rectified, s[3], first.pool()));
        k.launch(new AvgPoolBackward(s[3], rectified, first.pool()));
        k.launch(new ReluBackward(conv, rectified, rectified, c.outputLength()));
        k.launch(new Conv2dBackwardFilter(s[0], rectified, s[4], c));
        k.launch(new BiasAddBackward(rectified, s[5], c.bias()));
        List<Timeline.DeviceTime> times = timeline(d).devices();
        assertEquals(times.get(1).computeSec(), times.get(0).computeSec(), EPS);
        assertEquals(times.get(1).kernels(), times.get(0).kernels(), "the kernels each GPU is charged with");
        assertEquals(8, times.get(0).kernels().size(), times.get(0).kernels().toString());
        assertEquals(d.get(1).stats().flops(), d.get(0).stats().flops(), "the FLOPs each GPU did");
    }

    @Test
    void kernelsOfOneGpuRunInOrderAndGpusRunSideBySide() {
        List<Device> d = open(2);
        Buffer x0 = d.get(0).allocate(1 << 20), x1 = d.get(1).allocate(1 << 20);
        KernelOp.Call scale = new KernelOp.Scale(2f, x0, 1 << 20);
        double one = T4.kernelSeconds(scale);
        for (int i = 0; i < 3; i++) {
            d.get(0).kernels().launch(new Scale(2f, x0, 1 << 20));
            d.get(1).kernels().launch(new Scale(2f, x1, 1 << 20));
        }
        // GPU 1's first kernel is issued one launch after GPU 0's; each runs its three back to back
        assertEquals(2 * T4.launchSec() + 3 * one, timeline(d).now(), EPS);
        assertEquals(3 * one, timeline(d).devices().get(1).computeSec(), EPS);
    }

    @Test
    void aCopyWaitsForWorkIssuedBeforeItButLaterKernelsDoNotWaitForTheCopy() {
        List<Device> d = open(2);
        int n = 4 << 20; // 16 MB: about a millisecond over PCIe 3
        Buffer grad = d.get(0).allocate(n),
                other = d.get(0).allocate(n),
                received = d.get(1).allocate(n);
        Timeline t = timeline(d);
        d.get(0).kernels().launch(new Scale(2f, grad, n));
        double kernel = t.now();
        d.get(1).copyFromPeer(grad, received);
        double copyEnd = t.now();
        assertEquals(kernel + PCIE3.seconds(4L * n), copyEnd, 1e-9, "the copy starts when the kernel ends");
        d.get(0).kernels().launch(new Scale(2f, other, n)); // independent of the copy: overlaps it
        assertEquals(copyEnd, t.now(), EPS, "the second kernel ran while the copy was on the wire");
        d.get(0).kernels().launch(new Scale(2f, grad, n)); // overwrites what the copy reads: must wait for it
        assertTrue(t.now() > copyEnd + 1e-5);
        d.get(1).kernels().launch(new Scale(2f, received, n)); // reads what the copy wrote: after it
        assertTrue(t.devices().get(1).computeSec() > 0);
    }

    @Test
    void linksAreFullDuplex() {
        List<Device> d = open(2);
        int n = 1 << 20;
        Buffer a0 = d.get(0).allocate(n),
                b0 = d.get(0).allocate(n),
                a1 = d.get(1).allocate(n),
                b1 = d.get(1).allocate(n);
        Timeline t = timeline(d);
        d.get(1).copyFromPeer(a0, b1);
        d.get(0).copyFromPeer(a1, b0); // the other direction at the same time
        assertEquals(2 * T4.launchSec() + PCIE3.seconds(4L * n), t.now(), 1e-9);
        d.get(1).copyFromPeer(a0, b1); // the same direction again: right after the first
        assertEquals(T4.launchSec() + 2 * PCIE3.seconds(4L * n), t.now(), 1e-9);
        assertEquals(
                List.of(8L * n, 4L * n),
                t.links().stream().map(Timeline.LinkTraffic::bytes).toList());
        assertEquals("sim:0", t.links().getFirst().from().toString());
    }

    @Test
    void timeIsSplitIntoComputeCommunicationAndIdle() {
        List<Device> d = open(2);
        int n = 1 << 20;
        Buffer x = d.get(0).allocate(n), y = d.get(1).allocate(n);
        d.get(0).kernels().launch(new Scale(2f, x, n));
        d.get(1).copyFromPeer(x, y);
        Timeline t = timeline(d);
        for (Timeline.DeviceTime dt : t.devices()) {
            assertEquals(t.now(), dt.computeSec() + dt.commSec() + dt.idleSec(), 1e-12, dt.toString());
        }
        assertEquals(PCIE3.seconds(4L * n), t.devices().get(1).commSec(), 1e-12);
    }

    @Test
    void uploadsCrossTheHostLinkAndMakeTheHostWait() {
        List<Device> d = open(1);
        Buffer x = d.get(0).allocate(1 << 20);
        d.get(0).upload(new float[1 << 20], 0, x);
        assertEquals(
                Topology.named("pcie3").host().seconds(4L << 20), timeline(d).now(), EPS);
    }

    @Test
    void profilesSetCapacityAndNames() {
        Device rtx = open(1, "profile", "rtx4090").getFirst();
        assertEquals(24L << 30, rtx.info().memoryBytes());
        assertEquals("1× RTX 4090 over PCIe 4", rtx.timeline().orElseThrow().description());
        Device a100 = open(1, "profile", "A100", "topology", "pcie4", "memory-mb", "1000")
                .getFirst();
        assertEquals(1000L << 20, a100.info().memoryBytes());
        assertEquals("1× A100-SXM4 over PCIe 4", a100.timeline().orElseThrow().description());
    }

    @Test
    void theHostProfileIsMeasured() {
        Timeline t = open(1, "profile", "host").getFirst().timeline().orElseThrow();
        assertEquals("host", t.profile());
        assertEquals("host", t.topology());
    }

    @Test
    void theHostProgramsOwnWorkTakesTimeOnlyWhereTheDeviceIsThisMachine() {
        Timeline host = open(1, "profile", "host").getFirst().timeline().orElseThrow();
        double before = host.now();
        host.hostWork(0.25);
        assertEquals(before + 0.25, host.now(), EPS, "on the host profile the host thread does it, and waits");
        Timeline t4 = timeline(open(1));
        t4.hostWork(0.25);
        assertEquals(0, t4.now(), EPS, "a T4's host is modelled apart (or not at all)");
    }

    @Test
    void namedRangesAndEventsAreRecordedOnlyWhenAsked() {
        List<Device> quiet = open(1);
        quiet.getFirst().kernels().launch(new Fill(1f, quiet.getFirst().allocate(4), 4));
        assertTrue(timeline(quiet).trace().isEmpty());

        List<Device> d = open(2, "trace", "on");
        Buffer x = d.get(0).allocate(1024), y = d.get(1).allocate(1024);
        try (Device.Range r = d.get(1).range(new StepPart.ParameterAllReduce("W1"))) {
            d.get(0).kernels().launch(new Fill(1f, x, 1024));
            d.get(1).copyFromPeer(x, y);
        }
        List<Timeline.TraceEvent> events = timeline(d).trace();
        assertEquals(
                List.of("compute", "recv", "send", "steps"),
                events.stream().map(Timeline.TraceEvent::lane).toList());
        Timeline.TraceEvent copy = events.get(1), range = events.get(3);
        assertEquals(1, range.device());
        assertEquals(copy.startSec(), range.startSec(), EPS, "the range covers the copy, sim:1's only work");
        assertEquals(copy.durationSec(), range.durationSec(), EPS);
    }

    @Test
    void badOptionsAreNamed() {
        assertTrue(
                assertThrows(DeviceException.class, () -> open(1, "profile", "k80"))
                        .getMessage()
                        .contains(
                                "unknown device profile 'k80'; choose t4, v100, a100, h100, h200, rtx2080ti, rtx4090, rtx5090 or host"));
        assertTrue(assertThrows(DeviceException.class, () -> open(1, "topology", "ethernet"))
                .getMessage()
                .contains("unknown topology 'ethernet'"));
        assertTrue(assertThrows(DeviceException.class, () -> open(1, "trace", "yes"))
                .getMessage()
                .contains("trace must be on or off"));
    }
}
