package org.multigpulab.backend.sim;

import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;
import org.multigpulab.device.DeviceException;

/**
 * A network card between nodes, by its data rate in one direction. InfiniBand's rates are the InfiniBand Trade
 * Association's for a 4x link (EDR 100, HDR 200, NDR 400 Gb/s); Ethernet's are IEEE 802.3's.
 */
record Nic(String name, String displayName, double bytesPerSec) {

    private static final double GBIT = 1e9 / 8;

    static final List<Nic> ALL = List.of(
            new Nic("edr", "InfiniBand EDR 100 Gb/s", 100 * GBIT),
            new Nic("hdr", "InfiniBand HDR 200 Gb/s", 200 * GBIT),
            new Nic("ndr", "InfiniBand NDR 400 Gb/s", 400 * GBIT),
            new Nic("roce100", "100 GbE RoCE", 100 * GBIT),
            new Nic("roce200", "200 GbE RoCE", 200 * GBIT),
            // AWS Elastic Fabric Adapter, 100 Gb/s per adapter (p4d: 4 of them, p5: 32), through the aws-ofi-nccl
            // plugin; its transport's own start-up cost is not modelled
            new Nic("efa", "AWS EFA 100 Gb/s", 100 * GBIT),
            new Nic("eth200", "200 GbE", 200 * GBIT));

    static Nic named(String name) {
        String key = name.toLowerCase(Locale.ROOT);
        return ALL.stream()
                .filter(n -> n.name.equals(key))
                .findFirst()
                .orElseThrow(() -> new DeviceException("unknown network card '" + name + "'; choose "
                        + ALL.stream().map(Nic::name).collect(Collectors.joining(", "))));
    }

    /** The cards NVIDIA's DGX systems carry, one per GPU: DGX-1 EDR, DGX A100 HDR, DGX H100 NDR; else RoCE. */
    static Nic defaultFor(DeviceProfile gpu) {
        return named(
                switch (gpu.name()) {
                    case "v100" -> "edr";
                    case "a100" -> "hdr";
                    case "h100", "h200" -> "ndr";
                    default -> "roce100";
                });
    }
}
