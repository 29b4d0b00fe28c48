package org.multigpulab.lessons.cli;

import org.multigpulab.lessons.setup.DeviceSetup;
import picocli.CommandLine.Option;

/** The options that choose devices, shared by {@code train} and {@code lesson}. */
final class DeviceOptions {

    @Option(
            names = "--backend",
            paramLabel = "NAME",
            defaultValue = "sim",
            description =
                    "Device backend: sim, cpu, opencl, ... (./lab devices lists them). Default: ${DEFAULT-VALUE}.")
    String backend;

    @Option(
            names = "--physical",
            paramLabel = "NAME",
            description = "For --backend sim: the backend whose device the logical GPUs run on. Default: cpu.")
    String physical;

    @Option(
            names = "--profile",
            paramLabel = "GPU",
            description =
                    "For --backend sim: the GPUs whose time is simulated: t4, v100, a100, h100, h200, rtx2080ti, rtx4090,"
                            + " rtx5090, or host (this machine, measured at start). Default: t4.")
    String profile;

    @Option(
            names = "--topology",
            paramLabel = "LINK",
            description =
                    "For --backend sim: how the GPUs are connected: pcie3, pcie4, pcie5, pcie3-host,"
                            + " pcie3-switch-host, pcie4-host, pcie5-host (no P2P), nvlink2, nvlink3, nvlink4,"
                            + " nvlink4-bridge, host. Default: the profile's usual one (t4: pcie3, v100: nvlink2, a100: nvlink3, ...).")
    String topology;

    @Option(
            names = "--gpus",
            paramLabel = "N",
            description =
                    "Number of devices (the notebook's num_gpus). Default: 2 on sim, else 1; lessons choose their own.")
    Integer gpus;

    DeviceSetup setup() {
        return new DeviceSetup(backend, physical, profile, topology, false);
    }
}
