package org.multigpulab.backend.sim;

import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Collectors;
import org.multigpulab.device.DeviceException;

/**
 * How the GPUs reach each other and the host. Every GPU has one port to its peers, full duplex: it can send
 * and receive at once, each direction at {@code peer}'s rate, and every pair is reachable at that rate (a
 * switch: PCIe through the host's root complex, or NVSwitch). {@code host} is the PCIe link to the host's
 * memory; when {@code peersOverHost}, peer traffic crosses the same PCIe port and competes with it.
 * {@code transport} is how NCCL moves data between peers, which decides its latencies and algorithms;
 * {@code hostMemoryBytesPerSec} is the host memory's bandwidth, the limit when peers go through it;
 * {@code fabric} is the node's links as NCCL's topology search sees them.
 */
record Topology(
        String name,
        String displayName,
        Link peer,
        Link host,
        boolean peersOverHost,
        Transport transport,
        double hostMemoryBytesPerSec,
        Fabric fabric) {

    /** How NCCL reaches a peer on the same node. */
    enum Transport {
        /** NVLink, directly or through an NVSwitch without reduction in the switch. */
        NVLINK,
        /** NVLink through third-generation NVSwitches, which can add in the switch (NVLink SHARP, NCCL's NVLS). */
        NVLINK_SHARP,
        /** PCIe peer-to-peer: one GPU writes into the other's memory. */
        PCIE_P2P,
        /** No peer-to-peer: the sender writes into host memory and the receiver reads it from there (NCCL's SHM). */
        HOST_MEMORY
    }

    private static final double G = 1e9;
    /** A peer copy's fixed cost: the launch of the copy plus the handshake, some microseconds. */
    private static final double PCIE_LATENCY = 10e-6;

    private static final double NVLINK_LATENCY = 5e-6;

    // PCIe x16, per direction: lanes × transfer rate × encoding (PCI-SIG): 3.0 8 GT/s 128b/130b = 15.75 GB/s,
    // 4.0 16 GT/s = 31.5 GB/s, 5.0 32 GT/s = 63 GB/s.
    private static final Link PCIE3 = new Link(PCIE_LATENCY, 15.75 * G);
    private static final Link PCIE4 = new Link(PCIE_LATENCY, 31.5 * G);
    private static final Link PCIE5 = new Link(PCIE_LATENCY, 63 * G);

    /**
     * NVLinks between the GPUs of a DGX-1 with V100s, by pair: its hybrid cube mesh, six links per GPU, as
     * {@code nvidia-smi topo -m} prints it there (NV1 or NV2 per pair; Microway, "nvidia-smi: Control Your GPUs",
     * microway.com/hpc-tech-tips/nvidia-smi_control-your-gpus/, its DGX-1 example).
     */
    static final int[][] DGX1_NVLINKS = {
        {0, 1, 1, 2, 2, 0, 0, 0},
        {1, 0, 2, 1, 0, 2, 0, 0},
        {1, 2, 0, 2, 0, 0, 1, 0},
        {2, 1, 2, 0, 0, 0, 0, 1},
        {2, 0, 0, 0, 0, 1, 1, 2},
        {0, 2, 0, 0, 1, 0, 2, 1},
        {0, 0, 1, 0, 1, 2, 0, 2},
        {0, 0, 0, 1, 2, 1, 2, 0}
    };

    // JEDEC DDR5-4800: 4800 MT/s × 8 bytes = 38.4 GB/s per channel.
    private static final double DDR5_4800_CHANNEL = 38.4 * G;

    static final List<Topology> ALL = List.of(
            new Topology("pcie3", "PCIe 3", PCIE3, PCIE3, true, Transport.PCIE_P2P, 0, new Fabric.Pcie(3, true, 1)),
            new Topology("pcie4", "PCIe 4", PCIE4, PCIE4, true, Transport.PCIE_P2P, 0, new Fabric.Pcie(4, true, 1)),
            new Topology("pcie5", "PCIe 5", PCIE5, PCIE5, true, Transport.PCIE_P2P, 0, new Fabric.Pcie(5, true, 1)),
            // An older desktop or workstation whose GeForce cards have no peer-to-peer, on PCIe 3; the host an
            // assumption: two channels of DDR4-3200 (JEDEC: 25.6 GB/s each).
            new Topology(
                    "pcie3-host",
                    "PCIe 3 without P2P (2-channel DDR4 host)",
                    PCIE3,
                    PCIE3,
                    true,
                    Transport.HOST_MEMORY,
                    2 * 25.6 * G,
                    new Fabric.Pcie(3, false, 1)),
            // Two GeForce cards without peer-to-peer under one PCIe 3 switch (nvidia-smi topo: PIX), as in many rented
            // servers: their traffic through host memory shares the switch's x16 link to the host
            new Topology(
                    "pcie3-switch-host",
                    "PCIe 3 switch without P2P",
                    PCIE3,
                    PCIE3,
                    true,
                    Transport.HOST_MEMORY,
                    2 * 25.6 * G,
                    new Fabric.Pcie(3, false, 2)),
            // GeForce cards have no peer-to-peer, so NCCL stages through host memory. The host is an assumption,
            // not a measurement: a desktop with two channels of DDR5-4800.
            new Topology(
                    "pcie4-host",
                    "PCIe 4 without P2P (2-channel DDR5 host)",
                    PCIE4,
                    PCIE4,
                    true,
                    Transport.HOST_MEMORY,
                    2 * DDR5_4800_CHANNEL,
                    new Fabric.Pcie(4, false, 1)),
            // A server with two Xeon Platinum 8480+ (Intel ARK: 8 channels of DDR5-4800 each).
            new Topology(
                    "pcie5-host",
                    "PCIe 5 without P2P (2× Xeon 8480+ host)",
                    PCIE5,
                    PCIE5,
                    true,
                    Transport.HOST_MEMORY,
                    2 * 8 * DDR5_4800_CHANNEL,
                    new Fabric.Pcie(5, false, 1)),
            // A textbook figure, not a datasheet's: DGX-1's hybrid cube mesh of V100s as d2l §12.7 counts it,
            // 18 GB/s per NVLink 2 link and three links' worth for each GPU in a ring (the datasheet's 6 links ×
            // 25 GB/s are not all on one ring).
            new Topology(
                    "nvlink2",
                    "NVLink 2 (DGX-1 hybrid cube mesh)",
                    new Link(NVLINK_LATENCY, 3 * 18 * G),
                    PCIE3,
                    false,
                    Transport.NVLINK,
                    0,
                    new Fabric.Mesh(DGX1_NVLINKS, 3)),
            // A100 SXM4 datasheet: NVLink 3, 600 GB/s both directions through NVSwitch (300 GB/s each way)
            new Topology(
                    "nvlink3",
                    "NVLink 3 (NVSwitch)",
                    new Link(NVLINK_LATENCY, 300 * G),
                    PCIE4,
                    false,
                    Transport.NVLINK,
                    0,
                    new Fabric.NvSwitch(12, 4)),
            // Two H100 PCIe cards joined by three NVLink bridges (H100 PCIe product brief: 600 GB/s both ways,
            // twelve NVLink 4 links), PCIe 5 to the host
            new Topology(
                    "nvlink4-bridge",
                    "NVLink 4 bridge (2 GPUs)",
                    new Link(NVLINK_LATENCY, 300 * G),
                    PCIE5,
                    false,
                    Transport.NVLINK,
                    0,
                    new Fabric.Mesh(new int[][] {{0, 12}, {12, 0}}, 5)),
            // H100/H200 SXM datasheets: NVLink 4, 900 GB/s both directions through third-generation NVSwitches
            // (450 GB/s each way), which reduce in the switch (NVLink SHARP)
            new Topology(
                    "nvlink4",
                    "NVLink 4 (NVSwitch)",
                    new Link(NVLINK_LATENCY, 450 * G),
                    PCIE5,
                    false,
                    Transport.NVLINK_SHARP,
                    0,
                    new Fabric.NvSwitch(18, 5)));

    static final String HOST = "host";

    static Topology named(String name) {
        return find(name).orElseThrow(() -> new DeviceException("unknown topology '" + name + "'; choose " + names()));
    }

    /** The link called {@code name}, where the measured {@code host} one has no place (time-only GPUs). */
    static Topology link(String name) {
        return find(name)
                .orElseThrow(() -> new DeviceException("unknown topology '" + name + "' for simulated GPUs"
                        + (name.equalsIgnoreCase(HOST) ? " (host is measured when devices open)" : "") + "; choose "
                        + linkNames()));
    }

    private static Optional<Topology> find(String name) {
        String key = name.toLowerCase(Locale.ROOT);
        return ALL.stream().filter(t -> t.name.equals(key)).findFirst();
    }

    static String names() {
        return linkNames() + " or " + HOST;
    }

    /** The links, without the measured {@code host} one. */
    static String linkNames() {
        return ALL.stream().map(Topology::name).collect(Collectors.joining(", "));
    }
}
