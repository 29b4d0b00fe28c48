package org.multigpulab.backend.sim;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.multigpulab.backend.sim.NcclTuning.Algorithm;
import org.multigpulab.backend.sim.NcclTuning.Hop;
import org.multigpulab.backend.sim.NcclTuning.Protocol;
import org.multigpulab.backend.sim.Topology.Transport;
import org.multigpulab.device.CollectiveCostModel;
import org.multigpulab.device.CollectiveCostModel.Collective;
import org.multigpulab.device.CollectiveCostModel.Estimate;
import org.multigpulab.device.DeviceException;

/**
 * One system as NCCL sees it: {@code nodes} nodes of {@code perNode} GPUs joined by {@code topology}, and
 * {@code nics} network cards per node between them. A collective takes, as in NCCL's own model, a latency plus
 * its size over an algorithm bandwidth, for each algorithm (ring, tree, NVLS) and protocol (LL, LL128, Simple)
 * that can run it; NCCL runs the fastest, and so does "auto".
 *
 * <p>The bandwidth is the slowest link's: inside a node a GPU's NVLink or PCIe port, at the share NCCL reaches;
 * without peer-to-peer, also the host memory every byte is written to and read from; between nodes, the node's
 * cards together (one ring or tree per card). A ring's bus bandwidth is that link's; a tree's algorithm
 * bandwidth half of it, as NCCL reckons; NVLS adds in the switch, and across nodes each GPU sends its share
 * through its own card, so that on two nodes the node's cards carry the whole buffer once.
 *
 * <p>Not modelled: channels and their per-channel limits, the PCIe root complex, sockets and their link,
 * transports slower to start than InfiniBand (TCP, EFA, TCPXO), CollNet (SHARP in the network switches).
 */
final class NcclSystem implements CollectiveCostModel.CostedSystem {

    /**
     * The share of NVLink's or PCIe's rate NCCL delivers: 370 of NVLink 4's 450 GB/s per direction, as NCCL's
     * maintainers put it (github.com/NVIDIA/nccl-tests/issues/212: "protocol overhead (~20%)").
     */
    static final double LINK_EFFICIENCY = 370.0 / 450.0;
    /** On the network, the discount NCCL's own model gives trees, 0.9 (tuning.cc), taken for every path. */
    static final double NETWORK_EFFICIENCY = 0.9;
    /**
     * NVLS all-reduce on 8 H100s at large sizes: algbw about 275 GB/s (busbw 480), as NCCL's maintainers give it
     * (github.com/NVIDIA/nccl-tests/issues/212), a measurement.
     */
    static final double NVLS_ALGBW = 275e9;

    private final DeviceProfile gpu;
    private final Topology topology;
    private final Nic nic;
    private final int nodes;
    private final int perNode;
    private final int nics;

    NcclSystem(DeviceProfile gpu, Topology topology, Nic nic, int nodes, int perNode, int nics) {
        this.gpu = gpu;
        this.topology = topology;
        this.nic = nic;
        this.nodes = nodes;
        this.perNode = perNode;
        this.nics = nics;
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

    @Override
    public Estimate estimate(Collective op, long bytes, String algorithm) {
        int n = nodes * perNode;
        if (n == 1) {
            // one rank: nccl-tests times a copy within the GPU, a read and a write of every byte
            return new Estimate(2.0 * bytes / gpu.memoryBytesPerSec(), "copy", "none");
        }
        Estimate best = null;
        for (Algorithm a : algorithms(op, algorithm)) {
            for (Protocol p : protocols(a)) {
                double seconds = latencyMicros(a, p, op, bytes) * 1e-6 + bytes / algorithmBandwidth(a, p, op, bytes);
                if (best == null || seconds < best.seconds()) {
                    best = new Estimate(seconds, a.name().toLowerCase(Locale.ROOT), protocolName(p));
                }
            }
        }
        return best;
    }

    private List<Algorithm> algorithms(Collective op, String name) {
        List<Algorithm> possible = new ArrayList<>(List.of(Algorithm.RING));
        if (op == Collective.ALL_REDUCE) {
            possible.add(Algorithm.TREE);
            if (topology.transport() == Transport.NVLINK_SHARP) {
                possible.add(Algorithm.NVLS);
            }
        }
        if (name.equals("auto")) {
            return possible;
        }
        Algorithm asked = switch (name) {
            case "ring" -> Algorithm.RING;
            case "tree" -> Algorithm.TREE;
            case "nvls" -> Algorithm.NVLS;
            default -> throw new DeviceException("unknown algorithm '" + name + "'; choose auto, ring, tree or nvls");
        };
        if (!possible.contains(asked)) {
            throw new DeviceException(
                    asked == Algorithm.NVLS && op == Collective.ALL_REDUCE
                            ? "nvls needs NVSwitches that add (topology nvlink4); " + topology.name() + " has none"
                            : "NCCL runs " + op.option() + " as a ring only; drop --algo or choose ring");
        }
        return List.of(asked);
    }

    /** LL128 only over NVLink, as NCCL enables it by default; NVLS only with Simple. */
    private List<Protocol> protocols(Algorithm a) {
        if (a == Algorithm.NVLS) {
            return List.of(Protocol.SIMPLE);
        }
        return intraHop() == Hop.NVLINK
                ? List.of(Protocol.LL, Protocol.LL128, Protocol.SIMPLE)
                : List.of(Protocol.LL, Protocol.SIMPLE);
    }

    private Hop intraHop() {
        return topology.transport() == Transport.NVLINK || topology.transport() == Transport.NVLINK_SHARP
                ? Hop.NVLINK
                : Hop.PCI;
    }

    /** Bytes per second one GPU sends and receives inside its node, through host memory when it must. */
    double intraBandwidth() {
        double port = topology.peer().bytesPerSec() * LINK_EFFICIENCY;
        if (topology.transport() == Transport.HOST_MEMORY) {
            // every byte is written to host memory and read back, by every GPU of the node at once
            return Math.min(port, topology.hostMemoryBytesPerSec() * LINK_EFFICIENCY / (2.0 * perNode));
        }
        return port;
    }

    /** Bytes per second one node sends (and receives) over all its cards. */
    double networkBandwidth() {
        return nics * nic.bytesPerSec() * NETWORK_EFFICIENCY;
    }

    private double algorithmBandwidth(Algorithm a, Protocol p, Collective op, long bytes) {
        double link = nodes == 1 ? intraBandwidth() : Math.min(intraBandwidth(), networkBandwidth());
        int n = nodes * perNode;
        return switch (a) {
            case RING -> {
                double bus = switch (p) {
                    case LL -> link / (nodes > 1 || op == Collective.ALL_REDUCE || op == Collective.REDUCE ? 4.0 : 3.0);
                    case LL128 -> link * (perNode < 2 ? 0.7 : 0.92);
                    case SIMPLE -> link;
                };
                yield bus / op.busBandwidthFactor(n);
            }
            case TREE -> {
                double bus = switch (p) {
                    case LL -> link * 0.9 / 3.8;
                    case LL128 -> link * 0.9 * (nodes == 1 ? 7.0 / 9.0 : 0.915);
                    case SIMPLE -> link * 0.9;
                };
                yield bus * 0.5 * NcclTuning.treeCorrection(p, bytes);
            }
            case NVLS -> nodes == 1 ? NVLS_ALGBW : Math.min(NVLS_ALGBW, networkBandwidth() * (nodes == 2 ? 1 : 0.5));
        };
    }

    private double latencyMicros(Algorithm a, Protocol p, Collective op, long bytes) {
        int n = nodes * perNode;
        if (a == Algorithm.NVLS) {
            // NCCL 2.8 has no NVLS; taken as a ring's Simple start, one NVLink step there and back, and a network
            // step there and back per level of the tree of nodes: an assumption.
            return NcclTuning.baseMicros(Algorithm.RING, p)
                    + 2 * NcclTuning.hopMicros(Hop.NVLINK, Algorithm.RING, p)
                    + 2 * NcclTuning.log2(nodes) * NcclTuning.hopMicros(Hop.NET, Algorithm.RING, p);
        }
        double base = NcclTuning.baseMicros(a, p);
        double intra = NcclTuning.hopMicros(intraHop(), a, p) * (nodes > 1 && p == Protocol.LL ? 1.8 : 1.0);
        double inter = NcclTuning.hopMicros(Hop.NET, a, p);
        if (a == Algorithm.TREE) {
            return base + 2 * ((perNode - 1) * intra + NcclTuning.log2(nodes) * inter);
        }
        int steps, interSteps;
        switch (op) {
            case ALL_REDUCE -> {
                steps = 2 * (n - 1);
                interSteps = 2 * (nodes - 1);
            }
            case REDUCE_SCATTER, ALL_GATHER -> {
                steps = n - 1;
                interSteps = nodes - 1;
            }
            default -> { // broadcast and reduce: the first chunk passes every GPU of the chain
                steps = n - 1;
                interSteps = nodes - 1;
            }
        }
        double ring = base + (steps - interSteps) * intra + interSteps * inter;
        boolean plateau = p == Protocol.SIMPLE && nodes > 1 && op == Collective.ALL_REDUCE && bytes >= n / 16.0 * 65536;
        return plateau ? ring * 1.9 : ring; // NCCL's "plateau effect of ring" across nodes
    }

    private static String protocolName(Protocol p) {
        return p == Protocol.SIMPLE ? "Simple" : p.name();
    }
}
