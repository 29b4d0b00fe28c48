package org.multigpulab.backend.sim;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.multigpulab.backend.sim.NcclTuning.Algorithm;
import org.multigpulab.backend.sim.NcclTuning.Generation;
import org.multigpulab.backend.sim.NcclTuning.Hop;
import org.multigpulab.backend.sim.NcclTuning.Protocol;
import org.multigpulab.backend.sim.Topology.Transport;
import org.multigpulab.device.CollectiveCostModel;
import org.multigpulab.device.CollectiveCostModel.Collective;
import org.multigpulab.device.CollectiveCostModel.Estimate;
import org.multigpulab.device.DeviceException;

/**
 * One system as NCCL 2.21.5 sees it: {@code nodes} nodes of {@code perNode} GPUs joined by {@code topology}, and
 * {@code nics} network cards per node between them.
 *
 * <p>First the topology search ({@link NcclGraph}): how many rings (channels) the links carry, and at what speed
 * each. Then NCCL's tuning model ({@code tuning.cc}): for each algorithm (ring, tree, NVLS) and protocol (LL, LL128,
 * Simple) a latency and a bandwidth, from the channels and the tables of {@link NcclTuning}; NCCL runs the pair its
 * model calls fastest, and so does "auto". Then the time nccl-tests would measure: the chosen pair on the channels
 * and threads {@code enqueue.cc} gives a collective of that size (fewer for small ones), its latency scaled to what
 * steps really take ({@link NcclFigures}: the figures fitted on measurements). nccl-tests launches its iterations
 * back to back, so a host thread's launches on its GPUs are a floor under each: most of a small collective's time
 * where one thread drives every GPU of a node ({@code -g 8}).
 *
 * <p>Not modelled: CollNet (SHARP in the network's switches), the sockets' link between GPUs, the start-up
 * costs of transports other than InfiniBand's verbs (TCP sockets, EFA's SRD, GPUDirect-TCPXO).
 */
final class NcclSystem implements CollectiveCostModel.CostedSystem {

    private final DeviceProfile gpu;
    private final Topology topology;
    private final Nic nic;
    private final int nodes;
    private final int perNode;
    private final int nics;
    private final int gpusPerThread;
    private final NcclFigures figures;
    private final int computeCapability;
    private final Generation generation;
    private final NcclGraph ring;
    /** The tree's speed within the node (its channels are the rings'). */
    private final double treeSpeed;
    /** Channels the communicator runs: the ring search's twice over, at most MAXCHANNELS (connect.cc). */
    private final int channels;
    /** The NVLS channels: one per GPU of the node. */
    private final NcclGraph nvls;
    /** What one node's cards carry per GPU, GB/s: the network's share of each NVLS channel across nodes. */
    private final double networkPerGpu;

    /** Refuses a node of {@code perNode} GPUs that {@code topology} does not join: DGX-1's mesh has 8. */
    static void checkNodeFits(Topology topology, int perNode) {
        if (topology.fabric() instanceof Fabric.Mesh mesh && perNode > mesh.links().length) {
            throw new DeviceException(topology.name() + " is " + topology.displayName() + " of " + mesh.links().length
                    + " GPUs; choose at most " + mesh.links().length + " GPUs per node");
        }
    }

    NcclSystem(
            DeviceProfile gpu,
            Topology topology,
            Nic nic,
            int nodes,
            int perNode,
            int nics,
            int gpusPerThread,
            NcclFigures figures) {
        this.gpu = gpu;
        this.topology = topology;
        this.nic = nic;
        this.nodes = nodes;
        this.perNode = perNode;
        this.nics = nics;
        this.gpusPerThread = gpusPerThread;
        this.figures = figures;
        this.computeCapability = computeCapability(gpu);
        this.generation = Generation.of(computeCapability);
        double nicBw = nic.bytesPerSec() / 1e9 * figures.get("nic-scale");
        this.ring = NcclGraph.rings(topology.fabric(), perNode, figures, computeCapability, nodes, nics, nicBw);
        this.treeSpeed = NcclGraph.treeSpeed(ring, topology.fabric(), perNode, figures, computeCapability, nodes);
        this.channels = Math.min(NcclTuning.MAX_CHANNELS, 2 * ring.channels());
        this.nvls = NcclGraph.nvls(topology.fabric(), perNode, figures, computeCapability);
        this.networkPerGpu = nics * NcclGraph.nicPath(topology.fabric(), figures, nicBw) / perNode;
    }

    /**
     * The compute capability NCCL reads from each GPU (NVIDIA, CUDA GPUs: developer.nvidia.com/cuda-gpus): T4 7.5,
     * V100 7.0, A100 8.0, H100 and H200 9.0, RTX 2080 Ti 7.5, RTX 4090 8.9, RTX 5090 12.0. The measured host counts as 8.0.
     */
    static int computeCapability(DeviceProfile gpu) {
        return switch (gpu.name()) {
            case "t4", "rtx2080ti" -> 75;
            case "v100" -> 70;
            case "h100", "h200" -> 90;
            case "rtx4090" -> 89;
            case "rtx5090" -> 120;
            default -> 80;
        };
    }

    @Override
    public String description() {
        String inside = String.format(
                Locale.ROOT,
                "%d× %s in %d node%s, %s inside",
                nodes * perNode,
                gpu.displayName(),
                nodes,
                nodes == 1 ? "" : "s",
                topology.displayName());
        return nodes == 1 ? inside : inside + ", " + nics + "× " + nic.displayName() + " each";
    }

    /** nccl-tests' time: the GPUs' own, or one thread's launches on its GPUs where those take longer. */
    @Override
    public Estimate estimate(Collective op, long bytes, String algorithm) {
        Estimate onDevices = onDevices(op, bytes, algorithm);
        double launches = gpusPerThread * figures.get("launch-us") * 1e-6;
        return launches > onDevices.seconds()
                ? new Estimate(launches, onDevices.algorithm(), onDevices.protocol())
                : onDevices;
    }

    /** The time the GPUs take for a collective once it is launched, as a timeline that charges launches needs. */
    Estimate onDevices(Collective op, long bytes, String algorithm) {
        if (ranks() == 1) {
            // one rank: nccl-tests times a copy within the GPU, a read and a write of every byte
            return new Estimate(2.0 * bytes / gpu.memoryBytesPerSec(), "copy", "none");
        }
        Algorithm chosenAlgorithm = null;
        Protocol chosenProtocol = null;
        double fastest = Double.POSITIVE_INFINITY;
        for (Algorithm a : algorithms(op, algorithm)) {
            for (Protocol p : protocols(a)) {
                double predicted = latencyMicros(a, p, op, bytes) + bytes / (1000 * bandwidth(a, p, op, bytes));
                if (predicted < fastest) {
                    fastest = predicted;
                    chosenAlgorithm = a;
                    chosenProtocol = p;
                }
            }
        }
        return new Estimate(
                measuredMicros(chosenAlgorithm, chosenProtocol, op, bytes) * 1e-6,
                chosenAlgorithm.name().toLowerCase(Locale.ROOT),
                chosenProtocol == Protocol.SIMPLE ? "Simple" : chosenProtocol.name());
    }

    /** What nccl-tests would time for {@code a} with {@code p}, in µs. */
    private double measuredMicros(Algorithm a, Protocol p, Collective op, long bytes) {
        int used = channels;
        if (a == Algorithm.RING || a == Algorithm.TREE) {
            int threads = NcclTuning.maxThreads(a, p, ring.busBw());
            used = NcclTuning.channelsFor(bytes, channels, threads, NcclTuning.threadThreshold(a, p, ranks()));
        }
        double latency = latencyMicros(a, p, op, bytes);
        if (a == Algorithm.RING && p == Protocol.SIMPLE) {
            // NCCL's latency counts each ring step once; every slice of every loop waits for a flag over the link
            double perSlice = NcclTuning.hopMicros(topology.fabric().hop(), a, p);
            latency += perSlice * (simpleRingSlices(op, bytes, used) - steps(op));
        }
        return figures.get("latency-scale") * latency + bytes / (1000 * bandwidth(a, p, op, bytes) * used / channels);
    }

    /**
     * The slices one channel's Simple ring passes on in turn, each waiting for its peer's flag
     * ({@code prims_simple.h}): the ring's steps for every loop over the channel's bytes, a loop being a chunk per
     * rank (the Simple buffer's 4 MiB over {@code NCCL_STEPS} 8, times the collective's chunk steps: 2 MiB for
     * allreduce, allgather and reduce-scatter, 512 KiB for broadcast and reduce), each chunk in slices (2 and 1;
     * {@code collectives.h}).
     */
    private double simpleRingSlices(Collective op, long bytes, int used) {
        boolean rooted = op == Collective.BROADCAST || op == Collective.REDUCE;
        long loop = (long) used * ranks() * (rooted ? 512 << 10 : 2 << 20);
        long loops = Math.max(1, (bytes + loop - 1) / loop);
        return (double) loops * steps(op) * (rooted ? 1 : 2);
    }

    private int ranks() {
        return nodes * perNode;
    }

    private List<Algorithm> algorithms(Collective op, String name) {
        List<Algorithm> possible = new ArrayList<>(List.of(Algorithm.RING));
        if (op == Collective.ALL_REDUCE) {
            possible.add(Algorithm.TREE);
            if (nvls()) {
                possible.add(nodes == 1 ? Algorithm.NVLS : Algorithm.NVLS_TREE);
            }
        }
        if (name.equals("auto")) {
            return possible;
        }
        Algorithm asked = switch (name) {
            case "ring" -> Algorithm.RING;
            case "tree" -> Algorithm.TREE;
            case "nvls" -> nodes == 1 ? Algorithm.NVLS : Algorithm.NVLS_TREE;
            default -> throw new DeviceException("unknown algorithm '" + name + "'; choose auto, ring, tree or nvls");
        };
        if (!possible.contains(asked)) {
            throw new DeviceException(
                    asked != Algorithm.TREE && op == Collective.ALL_REDUCE
                            ? "nvls needs NVSwitches that add (topology nvlink4) and Hopper GPUs; this system is "
                                    + description()
                            : "NCCL runs " + op.option() + " as a ring only; drop --algo or choose ring");
        }
        return List.of(asked);
    }

    /** NVLS: NVSwitches that add, Hopper or later; across nodes as NVLSTree. */
    private boolean nvls() {
        return topology.transport() == Transport.NVLINK_SHARP && computeCapability >= 90;
    }

    /**
     * LL128 as NCCL enables it by default: over NVLink, on Volta, Ampere (8.0) or Hopper (9.0); NVLS only with
     * Simple.
     */
    private List<Protocol> protocols(Algorithm a) {
        if (a == Algorithm.NVLS || a == Algorithm.NVLS_TREE) {
            return List.of(Protocol.SIMPLE);
        }
        boolean ll128 = topology.fabric().hop() == Hop.NVLINK
                && (computeCapability == 70 || computeCapability == 80 || computeCapability == 90);
        return ll128 ? List.of(Protocol.LL, Protocol.LL128, Protocol.SIMPLE) : List.of(Protocol.LL, Protocol.SIMPLE);
    }

    /** NCCL's algorithm bandwidth of {@code a} with {@code p}, GB/s, with its tree correction for the size. */
    private double bandwidth(Algorithm a, Protocol p, Collective op, long bytes) {
        NcclGraph graph = a == Algorithm.NVLS || a == Algorithm.NVLS_TREE ? nvls : ring;
        int ch = graph.channels();
        double bus = switch (a) {
            case RING, NVLS -> graph.busBw();
            // across two nodes a tree's data crosses the network once each way, so its speed within the node may be
            // higher; beyond two nodes, the network's speed
            case TREE -> ch * treeSpeed;
            // each GPU's channel reduces in the switch and sends its share through the node's cards
            case NVLS_TREE -> ch * Math.min(graph.speed(), nodes <= 2 ? networkPerGpu : networkPerGpu / 2);
        };
        if (topology.transport() == Transport.HOST_MEMORY) {
            // every byte is written to host memory and read back, by every GPU of the node at once
            double memory = topology.hostMemoryBytesPerSec() / 1e9 / (2.0 * perNode);
            bus = Math.min(bus * figures.get("host-copy-share"), memory);
        }
        double llMax = NcclTuning.llMaxBw(generation, nodes);
        switch (a) {
            case RING -> {
                if (p == Protocol.LL) {
                    bus = Math.min(llMax, bus * .5);
                } else if (p == Protocol.LL128) {
                    bus = Math.min(bus * (perNode < 2 ? 0.7 : 0.92), ch * NcclTuning.ringLl128PerChannel(generation));
                }
            }
            case TREE -> {
                bus = Math.min(bus * .92, ch * NcclTuning.treePerChannel(generation, nodes));
                if (p == Protocol.LL) {
                    bus = Math.min(bus / 3.8, llMax);
                } else if (p == Protocol.LL128) {
                    bus = Math.min(
                            bus * (nodes == 1 ? 7.0 / 9.0 : 120.0 / 128.0),
                            ch * NcclTuning.treeLl128PerChannel(generation, nodes));
                }
            }
            case NVLS, NVLS_TREE -> {}
        }
        double algorithmBw = switch (a) {
            case RING -> bus * ranks() / steps(op);
            case TREE -> bus * .5 * NcclTuning.treeCorrection(p, bytes);
            case NVLS, NVLS_TREE -> bus * 5.0 / 6.0;
        };
        return algorithmBw;
    }

    /** A ring's steps: all-reduce 2(n−1), reduce-scatter and all-gather n−1, broadcast and reduce n. */
    private int steps(Collective op) {
        int n = ranks();
        return switch (op) {
            case ALL_REDUCE -> 2 * (n - 1);
            case REDUCE_SCATTER, ALL_GATHER -> n - 1;
            case BROADCAST, REDUCE -> n;
        };
    }

    /** NCCL's latency of {@code a} with {@code p}, µs, with the ring's plateau across nodes. */
    private double latencyMicros(Algorithm a, Protocol p, Collective op, long bytes) {
        Hop intraHop = topology.fabric().hop();
        double base = NcclTuning.baseMicros(a, p);
        double intra = NcclTuning.hopMicros(intraHop, a, p);
        double inter = NcclTuning.hopMicros(Hop.NET, a, p);
        return switch (a) {
            case TREE -> base + 2 * ((perNode - 1) * intra + NcclTuning.log2(nodes) * inter);
            case NVLS -> intra;
            case NVLS_TREE -> intra + 2 * NcclTuning.log2(nodes) * inter;
            case RING -> {
                int steps = steps(op);
                if (op == Collective.BROADCAST || op == Collective.REDUCE) {
                    Hop hop = nodes == 1 ? intraHop : Hop.NET;
                    yield base + steps * NcclTuning.hopMicros(hop, p == Protocol.SIMPLE ? Algorithm.TREE : a, p);
                }
                int interSteps = op == Collective.ALL_REDUCE ? (nodes > 1 ? 2 * nodes : 0) : nodes - 1;
                if (nodes > 1) {
                    // every step across nodes posts to the network: 1 µs on Intel hosts, three times for Simple
                    intra = Math.max(intra, p == Protocol.SIMPLE ? 3.0 : 1.0);
                }
                double ringLatency = base + (steps - interSteps) * intra + interSteps * inter;
                boolean plateau = p == Protocol.SIMPLE
                        && nodes > 1
                        && op == Collective.ALL_REDUCE
                        && bytes / ((long) channels * ranks()) >= 64;
                yield plateau ? ringLatency * NcclTuning.ringPlateau(generation) : ringLatency;
            }
        };
    }
}
