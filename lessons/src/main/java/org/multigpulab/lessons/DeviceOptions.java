package org.multigpulab.lessons;

import org.multigpulab.lessons.setup.DeviceSetup;
import picocli.CommandLine.Option;

/** The options that choose devices, shared by {@code train} and {@code lesson}. */
final class DeviceOptions {

    @Option(names = "--backend", paramLabel = "NAME", defaultValue = "sim",
            description = "Device backend: sim, cpu, opencl, ... (./lab devices lists them). Default: ${DEFAULT-VALUE}.")
    String backend;

    @Option(names = "--physical", paramLabel = "NAME",
            description = "For --backend sim: the backend whose device the logical GPUs run on. Default: cpu.")
    String physical;

    @Option(names = "--gpus", paramLabel = "N",
            description = "Number of devices (the notebook's num_gpus). Default: 2 on sim, else 1; lessons choose their own.")
    Integer gpus;

    DeviceSetup setup() {
        return new DeviceSetup(backend, physical);
    }
}
