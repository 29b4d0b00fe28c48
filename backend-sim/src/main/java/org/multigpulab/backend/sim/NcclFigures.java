package org.multigpulab.backend.sim;

import java.util.LinkedHashMap;
import java.util.Map;
import org.multigpulab.device.CollectiveCostModel;
import org.multigpulab.device.DeviceException;

/**
 * The figures the collective model computes with, by name, so that a fit can set some and a test can perturb any.
 * Most are NCCL's own (NCCL 2.21.5, {@code src/graph/topo.h} and {@code topo.cc}): one NVLink counts 20 GB/s on
 * compute capability 7.x and 8.0 and 20.6 on 9.0; a x16 PCIe link its lanes × its rate in units of 100 Mb/s over
 * 80 (Gen3 12, Gen4 24, Gen5 48); a network card its rate in Mb/s over 8,000. The rest are fitted on the
 * calibration set of published nccl-tests runs ({@code ./lab collectives --fit}), and no other figure is:
 * <ul>
 *   <li>{@code latency-scale}: NCCL's latencies are figures to choose an algorithm by, relative to one another; the
 *       time a collective's fixed part really takes on the GPUs is this multiple of them;</li>
 *   <li>{@code launch-us}: the time a host thread takes to launch a collective on one GPU, NCCL's enqueue and the
 *       kernel's launch, µs;</li>
 *   <li>{@code host-copy-share}: without peer-to-peer, the share of its PCIe link a GPU reaches when every byte goes
 *       through host memory (NCCL's SHM transport, copies by the GPU's threads into pinned host memory).</li>
 * </ul>
 */
record NcclFigures(Map<String, Double> values) {

    /** The figures fitted on the calibration set, and the command that fits them. */
    static final Map<String, CollectiveCostModel.Term> FITTED = Map.of(
            "latency-scale",
            CollectiveCostModel.Term.LATENCY,
            "launch-us",
            CollectiveCostModel.Term.LAUNCH,
            "host-copy-share",
            CollectiveCostModel.Term.BANDWIDTH);

    static NcclFigures defaults() {
        Map<String, Double> v = new LinkedHashMap<>();
        v.put("nvlink-sm70", 20.0);
        v.put("nvlink-sm80", 20.0);
        v.put("nvlink-sm90", 20.6);
        v.put("pcie-gen3", 12.0);
        v.put("pcie-gen4", 24.0);
        v.put("pcie-gen5", 48.0);
        v.put("nic-scale", 1.0);
        v.put("latency-scale", 1.382);
        v.put("launch-us", 4.677);
        v.put("host-copy-share", 0.693);
        return new NcclFigures(Map.copyOf(v));
    }

    NcclFigures {
        values = Map.copyOf(values);
    }

    double get(String name) {
        Double v = values.get(name);
        if (v == null) {
            throw new DeviceException("no figure '" + name + "' in the collective model; it has " + values.keySet());
        }
        return v;
    }

    /** These figures with {@code changes} in place of their own; each must be one the model has. */
    NcclFigures with(Map<String, Double> changes) {
        Map<String, Double> v = new LinkedHashMap<>(values);
        changes.forEach((name, value) -> {
            get(name);
            v.put(name, value);
        });
        return new NcclFigures(v);
    }

    /** One NVLink of a GPU of {@code computeCapability}, GB/s. */
    double nvlink(int computeCapability) {
        return get(computeCapability >= 90 ? "nvlink-sm90" : computeCapability >= 80 ? "nvlink-sm80" : "nvlink-sm70");
    }

    /** A x16 PCIe link of generation {@code gen}, GB/s. */
    double pcie(int gen) {
        return get("pcie-gen" + gen);
    }
}
