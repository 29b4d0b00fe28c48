package org.multigpulab.backend.sim;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import org.multigpulab.device.CollectiveCostModel;
import org.multigpulab.device.CollectiveCostModel.Collective;
import org.multigpulab.device.DeviceStats;
import org.multigpulab.device.KernelOp;
import org.multigpulab.device.StatsCounter;
import org.multigpulab.device.StepPart;
import org.multigpulab.device.Timeline;

/**
 * The virtual clocks of a group of logical GPUs, advanced by a cost model instead of measured.
 *
 * <p>The model is CUDA's, reduced to what decides the time of data-parallel training:
 * <ul>
 *   <li>One host thread issues all work, as the notebook's Python does, or with a host per GPU each GPU's own
 *   (a process per GPU, as DDP runs); each launch costs its host the profile's launch time, and nothing starts
 *   before it is issued. Downloads and {@code synchronize} make it wait.</li>
 *   <li>Each GPU runs its kernels one at a time, in issue order, each taking
 *   {@code max(flops / rate, bytes / bandwidth)}, on one of two streams: compute, and communication for
 *   the reductions inside collectives, as NCCL's run beside the compute stream.</li>
 *   <li>Each GPU has a peer port that sends and receives at once (full duplex) and a host port; a copy holds
 *   the sender's and the receiver's port for {@code latency + bytes / bandwidth}. A copy starts once the work
 *   issued before it on both GPUs' compute streams is done (as NCCL waits on an event of the compute stream);
 *   later kernels on the compute stream do not wait for it, unless they read what it writes: that is what
 *   lets communication overlap computation.</li>
 *   <li>An NCCL call ({@link #asOneNcclCall}) is one span, NCCL's model's time for it ({@link NcclSystem}), over
 *   the communication streams and links of every GPU it touches, its copies and additions not timed one by one.</li>
 *   <li>Every buffer remembers when its last write and its last read end, so that no kernel or copy reads data
 *   before it is written or overwrites data still being read.</li>
 *   <li>When these GPUs are one node of several, each node a process that sums its gradients first over its own
 *   GPUs and then, from the host, over the nodes (as {@code train --dist mpi} does), the host waits for the
 *   sum across the nodes as long as NCCL's model ({@link NcclSystem}) gives an allreduce over one GPU and one
 *   network card per node.</li>
 *   <li>With a model of the host program ({@link HostModel}, the notebook's PyTorch), the host runs each step
 *   part's own code (Python, the dispatcher, autograd) before issuing its work.</li>
 * </ul>
 * Not modelled: the PCIe root complex's own limit, contention of copies for SMs, clock boost.
 */
final class SimTimeline implements Timeline {

    private final SimCluster cluster;
    private final List<DeviceProfile> profiles;
    private final Topology topology;
    private final Nic nic;
    private final HostModel hostModel;
    private final boolean recording;
    private final Calibration calibration;
    private double hostProgram;
    private int nodes = 1;
    /** NCCL's model of one GPU per node over {@link #nodes} nodes, made when the node count is first met. */
    private NcclSystem acrossNodes;
    /** NCCL's model of these GPUs as one node, made at the first NCCL call. */
    private NcclSystem withinNode;
    /** The NCCL call whose moves are running, gathering what they touch; null outside one. */
    private NcclCall ncclCall;

    private final int count;
    /** The host threads' clocks: one, or one per GPU. */
    private final double[] hosts;

    private final double[] compute;
    private final double[] peerIn;
    private final double[] peerOut;
    private final double[] hostIn;
    private final double[] hostOut;
    private final double[] computeBusy;
    private final StatsCounter[] simulatedKernels;
    private final double[] comm;
    private final Intervals[] commBusy;
    private final Intervals[] busy;
    private final long[][] linkBytes;
    private final List<TraceEvent> trace = new ArrayList<>();

    /** The timeline of {@code profiles.size()} logical GPUs, device i charged at {@code profiles.get(i)}'s rates. */
    SimTimeline(
            SimCluster cluster,
            List<DeviceProfile> profiles,
            Topology topology,
            Nic nic,
            HostModel hostModel,
            boolean hostPerGpu,
            boolean recording,
            Calibration calibration) {
        this.hostModel = hostModel;
        this.calibration = calibration;
        this.cluster = cluster;
        this.count = profiles.size();
        this.profiles = List.copyOf(profiles);
        this.topology = topology;
        this.nic = nic;
        this.recording = recording;
        this.hosts = new double[hostPerGpu ? count : 1];
        compute = new double[count];
        peerIn = new double[count];
        peerOut = new double[count];
        // Over PCIe, peers and the host share each GPU's one port.
        hostIn = topology.peersOverHost() ? peerIn : new double[count];
        hostOut = topology.peersOverHost() ? peerOut : new double[count];
        computeBusy = new double[count];
        simulatedKernels = new StatsCounter[count];
        comm = new double[count];
        commBusy = new Intervals[count];
        busy = new Intervals[count];
        for (int i = 0; i < count; i++) {
            commBusy[i] = new Intervals();
            simulatedKernels[i] = new StatsCounter();
            busy[i] = new Intervals();
        }
        linkBytes = new long[count][count];
    }

    /** The host thread that issues device {@code d}'s work. */
    private int host(int d) {
        return hosts.length == 1 ? 0 : d;
    }

    DeviceProfile deviceProfile(int d) {
        return profiles.get(d);
    }

    /**
     * A kernel call on device {@code d}, on the compute stream or, when {@code onComm}, on the communication
     * stream; either way it is compute time, while communication time is the time the links are busy. It starts
     * once the buffers it reads are written and the ones it writes are no longer read or written. A fused call is
     * charged as the calls its device profile would launch ({@link DeviceProfile#charged}), one after another.
     */
    void kernel(int d, boolean onComm, KernelOp.Call call) {
        if (ncclCall != null) {
            ncclCall.touched(d, call);
            return;
        }
        DeviceProfile profile = profiles.get(d);
        double[] stream = onComm ? comm : compute;
        double ready = 0;
        int buffers = call.op().args().size();
        for (int i = 0; i < buffers; i++) {
            SimBuffer b = (SimBuffer) call.buffer(i);
            ready = Math.max(ready, call.writes(i) ? b.writable() : b.readable());
        }
        double start = Double.NaN;
        for (KernelOp.Call part : profile.charged(call)) {
            hosts[host(d)] += profile.launchSec();
            double partStart = max(hosts[host(d)], stream[d], ready);
            double seconds = profile.kernelSeconds(part);
            stream[d] = partStart + seconds;
            if (Double.isNaN(start)) {
                start = partStart;
            }
            computeBusy[d] += seconds;
            simulatedKernels[d].onKernel(part, Math.round(seconds * 1e9));
            busy[d].add(partStart, stream[d]);
            event(d, onComm ? "comm" : "compute", part.op().kernelName(), "kernel", partStart, seconds);
        }
        double end = stream[d];
        for (int i = 0; i < buffers; i++) {
            if (call.writes(i)) {
                ((SimBuffer) call.buffer(i)).written(end);
            }
        }
        for (int i = 0; i < buffers; i++) {
            if (call.reads(i)) {
                ((SimBuffer) call.buffer(i)).read(end);
            }
        }
        cluster.device(d).spanned(start, end);
    }

    /** A copy of {@code bytes} from device {@code from} to device {@code to}, issued on {@code to}. */
    void peerCopy(int from, int to, long bytes, SimBuffer src, SimBuffer dst) {
        linkBytes[from][to] += bytes;
        if (ncclCall != null) {
            ncclCall.copied(from, to, src, dst);
            return;
        }
        hosts[host(to)] += profiles.get(to).launchSec();
        double start = max(
                hosts[host(to)], compute[from], compute[to], peerOut[from], peerIn[to], src.readable(), dst.writable());
        double end = start + topology.peer().seconds(bytes);
        peerOut[from] = end;
        peerIn[to] = end;
        dst.written(end);
        src.read(end);
        communicated(from, start, end);
        communicated(to, start, end);
        if (recording) {
            String size = megabytes(bytes);
            event(to, "recv", "from " + cluster.device(from).id() + " " + size, "copy", start, end - start);
            event(from, "send", "to " + cluster.device(to).id() + " " + size, "copy", start, end - start);
        }
        cluster.device(to).spanned(start, end);
    }

    /** A copy from host memory to device {@code d}; pageable memory makes the host wait until it is done. */
    void upload(int d, long bytes, SimBuffer dst) {
        // nn.DataParallel's X.to(devices[0]) copies from pageable memory on the compute stream and blocks: after the
        // work issued before it
        boolean inStream = hostModel != null && hostModel.dataParallel();
        double start = max(hosts[host(d)], hostIn[d], dst.writable(), inStream ? compute[d] : 0);
        double end = start + topology.host().seconds(bytes);
        hostIn[d] = end;
        dst.written(end);
        hostWaited(d, "recv", "from host " + megabytes(bytes), start, end);
    }

    /** A copy from device {@code d} to the host, after the work issued on it; the host waits for it. */
    void download(int d, long bytes, SimBuffer src) {
        double start = max(hosts[host(d)], compute[d], hostOut[d], src.readable());
        double end = start + topology.host().seconds(bytes);
        hostOut[d] = end;
        src.read(end);
        hostWaited(d, "send", "to host " + megabytes(bytes), start, end);
    }

    /** A copy between device {@code d} and the host took {@code [start, end)}, and the host waited for it. */
    private void hostWaited(int d, String lane, String name, double start, double end) {
        hosts[host(d)] = end;
        communicated(d, start, end);
        event(d, lane, name, "copy", start, end - start);
        cluster.device(d).spanned(start, end);
    }

    /** The host waits until everything issued to device {@code d} is done. */
    void synchronize(int d) {
        hosts[host(d)] = max(hosts[host(d)], compute[d], comm[d], peerIn[d], peerOut[d], hostIn[d], hostOut[d]);
    }

    @Override
    public void acrossNodes(Collective op, long bytes, int nodes) {
        if (acrossNodes == null || this.nodes != nodes) {
            acrossNodes = new NcclSystem(profiles.getFirst(), topology, nic, nodes, 1, 1, 1, NcclFigures.defaults());
        }
        this.nodes = nodes;
        double seconds = acrossNodes.onDevices(op, bytes, "auto").seconds();
        // every host takes part, and none goes on before the sum is back
        double start = Arrays.stream(hosts).max().orElseThrow();
        Arrays.fill(hosts, start + seconds);
        event(0, "net", op.option() + " across " + nodes + " nodes " + megabytes(bytes), "network", start, seconds);
        cluster.device(0).spanned(start, start + seconds);
    }

    /**
     * The moves of one NCCL call run with their data, and their time is NCCL's model's for the call over these GPUs as
     * one node ({@link NcclSystem}, the collectives' model): each GPU's host launches it once; it starts when every GPU
     * taking part has done the work issued before it and the buffers it touches are free; it holds every such GPU's
     * communication stream and links until it ends. On the measured host, whose links have no NCCL figures, and on
     * one GPU, the moves are timed one by one.
     */
    @Override
    public void asOneNcclCall(Collective op, long bytes, Runnable moves) {
        if (ncclCall != null || count == 1 || profiles.getFirst().measured() != null) {
            moves.run();
            return;
        }
        if (withinNode == null) {
            NcclSystem.checkNodeFits(topology, count);
            withinNode = new NcclSystem(profiles.getFirst(), topology, nic, 1, count, 1, 1, NcclFigures.defaults());
        }
        NcclCall call = new NcclCall();
        ncclCall = call;
        try {
            moves.run();
        } finally {
            ncclCall = null;
        }
        double start = 0;
        for (int d : call.devices) {
            hosts[host(d)] += profiles.get(d).launchSec();
        }
        for (int d : call.devices) {
            start = max(start, hosts[host(d)], compute[d], comm[d], peerIn[d], peerOut[d]);
        }
        for (SimBuffer b : call.reads) {
            start = Math.max(start, b.readable());
        }
        for (SimBuffer b : call.writes) {
            start = Math.max(start, b.writable());
        }
        CollectiveCostModel.Estimate estimate = withinNode.onDevices(op, bytes, "auto");
        double end = start + estimate.seconds();
        for (int d : call.devices) {
            comm[d] = end;
            peerIn[d] = end;
            peerOut[d] = end;
            communicated(d, start, end);
            event(
                    d,
                    "comm",
                    "nccl " + op.option() + " " + estimate.algorithm() + "/" + estimate.protocol() + " "
                            + megabytes(bytes),
                    "nccl",
                    start,
                    end - start);
            cluster.device(d).spanned(start, end);
        }
        call.writes.forEach(b -> b.written(end));
        call.reads.forEach(b -> b.read(end));
    }

    /** What the moves of one NCCL call touched: the GPUs, the buffers read and written. */
    private static final class NcclCall {
        final Set<Integer> devices = new TreeSet<>();
        final Set<SimBuffer> reads = new LinkedHashSet<>();
        final Set<SimBuffer> writes = new LinkedHashSet<>();

        void touched(int d, KernelOp.Call call) {
            devices.add(d);
            for (int i = 0; i < call.op().args().size(); i++) {
                SimBuffer b = (SimBuffer) call.buffer(i);
                if (call.reads(i)) {
                    reads.add(b);
                }
                if (call.writes(i)) {
                    writes.add(b);
                }
            }
        }

        void copied(int from, int to, SimBuffer src, SimBuffer dst) {
            devices.add(from);
            devices.add(to);
            reads.add(src);
            writes.add(dst);
        }
    }

    @Override
    public void hostWork(double seconds) {
        if (calibration != null) {
            double start = hosts[0];
            for (int h = 0; h < hosts.length; h++) {
                hosts[h] += seconds;
            }
            event(0, "host", "host work", "host", start, seconds);
        }
    }

    @Override
    public int nodes() {
        return nodes;
    }

    /** Device {@code d} begins step part {@code name}: with a host program modelled, the host runs its code first. */
    void rangeOpened(int d, StepPart part) {
        if (hostModel != null) {
            double seconds = hostModel.seconds(part, d, count);
            hosts[host(d)] += seconds;
            hostProgram += seconds;
        }
    }

    @Override
    public double hostProgramSec() {
        return hostProgram;
    }

    @Override
    public double epochWithHostProgram(double epochSec, double hostProgramSec, int images) {
        return hostModel == null ? epochSec : hostModel.epochSeconds(epochSec, hostProgramSec, images);
    }

    /** A named range of device {@code d}'s work, from its first start to its last end. */
    void range(int d, String name, double start, double end) {
        event(d, "steps", name, "range", start, end - start);
    }

    private void communicated(int d, double start, double end) {
        commBusy[d].add(start, end);
        busy[d].add(start, end);
    }

    private void event(int d, String lane, String name, String category, double start, double seconds) {
        if (recording) {
            trace.add(new TraceEvent(d, lane, name, category, start, seconds));
        }
    }

    private static String megabytes(long bytes) {
        return String.format(Locale.ROOT, "%.3f MB", bytes / 1e6);
    }

    private static double max(double first, double... rest) {
        double m = first;
        for (double v : rest) {
            m = Math.max(m, v);
        }
        return m;
    }

    @Override
    public String description() {
        String gpus = profiles.stream().distinct().count() == 1
                ? count + "× " + profiles.getFirst().displayName()
                : String.join(
                        " + ", profiles.stream().map(DeviceProfile::displayName).toList());
        String node = gpus + " over " + topology.displayName();
        return nodes == 1 ? node : nodes + " nodes of " + node + ", " + nic.displayName() + " between them";
    }

    /** The profile's name, or one per device separated by commas when they differ ({@code t4,v100}). */
    @Override
    public String profile() {
        List<String> names =
                profiles.stream().map(DeviceProfile::name).distinct().toList();
        return names.size() == 1
                ? names.getFirst()
                : String.join(",", profiles.stream().map(DeviceProfile::name).toList());
    }

    @Override
    public String topology() {
        return topology.name();
    }

    @Override
    public double now() {
        double t = Arrays.stream(hosts).max().orElseThrow();
        for (int d = 0; d < count; d++) {
            t = max(t, compute[d], comm[d], peerIn[d], peerOut[d], hostIn[d], hostOut[d]);
        }
        return t;
    }

    @Override
    public List<DeviceTime> devices() {
        double span = now();
        List<DeviceTime> out = new ArrayList<>();
        for (int d = 0; d < count; d++) {
            SimDevice device = cluster.device(d);
            DeviceStats stats = device.stats();
            out.add(new DeviceTime(
                    device.id(),
                    computeBusy[d],
                    commBusy[d].union(),
                    span - busy[d].union(),
                    stats.bytesToPeers(),
                    stats.bytesFromPeers(),
                    stats.peakAllocatedBytes(),
                    simulatedKernels[d].snapshot().kernelTimes()));
        }
        return out;
    }

    @Override
    public List<LinkTraffic> links() {
        List<LinkTraffic> out = new ArrayList<>();
        for (int from = 0; from < count; from++) {
            for (int to = 0; to < count; to++) {
                if (linkBytes[from][to] > 0) {
                    out.add(new LinkTraffic(
                            cluster.device(from).id(), cluster.device(to).id(), linkBytes[from][to]));
                }
            }
        }
        out.sort(Comparator.comparingLong(LinkTraffic::bytes).reversed());
        return out;
    }

    @Override
    public Calibration calibration() {
        return calibration;
    }

    @Override
    public List<TraceEvent> trace() {
        return Collections.unmodifiableList(trace);
    }
}
