package org.multigpulab.backend.sim;

import java.util.Map;
import org.multigpulab.device.CollectiveCostModel;
import org.multigpulab.device.DeviceException;

/**
 * The {@code sim} backend's model of collectives, as NCCL runs them on the profiles and topologies the backend
 * knows ({@link NcclSystem} says how). Found by {@code ServiceLoader} as a {@link CollectiveCostModel}.
 */
public final class NcclCostModel implements CollectiveCostModel {

    private final NcclFigures figures;

    /** The model with its own figures (ServiceLoader's way in). */
    public NcclCostModel() {
        this(NcclFigures.defaults());
    }

    private NcclCostModel(NcclFigures figures) {
        this.figures = figures;
    }

    @Override
    public Map<String, Double> figures() {
        return figures.values();
    }

    @Override
    public Map<String, Term> fitted() {
        return NcclFigures.FITTED;
    }

    @Override
    public CollectiveCostModel with(Map<String, Double> changes) {
        return new NcclCostModel(figures.with(changes));
    }

    @Override
    public CostedSystem system(SystemSpec spec) {
        if (spec.gpus() < 1 || spec.nodes() < 1) {
            throw new DeviceException(
                    "--gpus and --nodes must be 1 or more, not " + spec.gpus() + " and " + spec.nodes());
        }
        if (spec.gpus() % spec.nodes() != 0) {
            throw new DeviceException(spec.gpus() + " GPUs do not split evenly over " + spec.nodes()
                    + " nodes; choose --gpus a multiple of --nodes");
        }
        if (spec.profile().equalsIgnoreCase(DeviceProfile.HOST)) {
            throw new DeviceException("the host profile is measured when devices open; choose a GPU profile: "
                    + DeviceProfile.gpuNames());
        }
        DeviceProfile gpu = DeviceProfile.named(spec.profile());
        Topology topology = Topology.link(spec.topology() == null ? gpu.defaultTopology() : spec.topology());
        Nic nic = spec.nic() == null ? Nic.defaultFor(gpu) : Nic.named(spec.nic());
        if (spec.nicsPerNode() < 0) {
            throw new DeviceException("--nics-per-node must be 0 (one per GPU) or more, not " + spec.nicsPerNode());
        }
        int perNode = spec.gpus() / spec.nodes();
        NcclSystem.checkNodeFits(topology, perNode);
        if (spec.gpusPerThread() < 1 || spec.gpusPerThread() > perNode) {
            throw new DeviceException("--gpus-per-thread must be from 1 to the " + perNode + " GPUs of a node, not "
                    + spec.gpusPerThread());
        }
        int nics = spec.nicsPerNode() == 0 ? perNode : spec.nicsPerNode();
        return new NcclSystem(gpu, topology, nic, spec.nodes(), perNode, nics, spec.gpusPerThread(), figures);
    }
}
