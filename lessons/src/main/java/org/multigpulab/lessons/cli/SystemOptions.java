package org.multigpulab.lessons.cli;

import org.multigpulab.lessons.errors.UserError;
import picocli.CommandLine.Option;

/** The simulated system, as {@code simulate} and {@code collectives} take it: GPUs, nodes, and what joins them. */
final class SystemOptions {

    @Option(
            names = "--gpus",
            paramLabel = "N",
            defaultValue = "8",
            description = "GPUs in all (default ${DEFAULT-VALUE}).")
    int gpus;

    @Option(
            names = "--nodes",
            paramLabel = "M",
            defaultValue = "1",
            description = "Nodes the GPUs are spread over evenly, --gpus / M each (default ${DEFAULT-VALUE}).")
    int nodes;

    @Option(
            names = "--profile",
            paramLabel = "GPU",
            defaultValue = "t4",
            description =
                    "The GPU: t4, v100, a100, h100, h200, rtx2080ti, rtx4090, rtx5090 (default ${DEFAULT-VALUE}).")
    String profile;

    @Option(
            names = "--topology",
            paramLabel = "LINK",
            description = "How GPUs of a node connect: pcie3, pcie4, pcie5; without P2P pcie3-host, pcie3-switch-host"
                    + " (two GPUs share a PCIe switch), pcie4-host, pcie5-host; nvlink2 (DGX-1's hybrid cube mesh),"
                    + " nvlink3, nvlink4 (NVSwitch), nvlink4-bridge (two H100 PCIe) (default: the profile's own).")
    String topology;

    @Option(
            names = "--nic",
            paramLabel = "NIC",
            description =
                    "Network card between nodes: edr, hdr, ndr, roce100, roce200, eth200, efa (default: a DGX's, by GPU).")
    String nic;

    /** Checks the counts, and that a network card is asked for only where one is crossed, before any work. */
    void check() {
        UserError.requireOneOrMore("--gpus", gpus);
        UserError.requireOneOrMore("--nodes", nodes);
        if (nic != null && nodes == 1) {
            throw new UserError("--nic chooses the network card between nodes, and one node crosses none; give"
                    + " --nodes 2 or more, or leave --nic out");
        }
    }
}
