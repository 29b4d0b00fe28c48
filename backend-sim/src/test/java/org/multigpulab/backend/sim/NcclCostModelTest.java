package org.multigpulab.backend.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.multigpulab.device.CollectiveCostModel;
import org.multigpulab.device.CollectiveCostModel.Collective;
import org.multigpulab.device.CollectiveCostModel.CostedSystem;
import org.multigpulab.device.CollectiveCostModel.SystemSpec;
import org.multigpulab.device.DeviceException;

/** The NCCL cost model: the limits it reaches at large sizes, the order of its choices, and its errors. */
class NcclCostModelTest {

    private static final long GIB = 1L << 30;
    private final CollectiveCostModel model = CollectiveCostModel.find();

    /** The model without its fixed times: what the links carry, which every slice's wait hides a little of. */
    private final CollectiveCostModel linksOnly = model.with(Map.of("latency-scale", 1e-9));

    private CostedSystem system(int gpus, int nodes, String profile, String topology, String nic, int nics) {
        return model.system(new SystemSpec(gpus, nodes, profile, topology, nic, nics));
    }

    private CostedSystem links(int gpus, int nodes, String profile, String topology, String nic, int nics) {
        return linksOnly.system(new SystemSpec(gpus, nodes, profile, topology, nic, nics));
    }

    private static double busbw(CostedSystem s, Collective op, int n, long bytes, String algo) {
        return bytes / s.estimate(op, bytes, algo).seconds() * op.busBandwidthFactor(n) / 1e9;
    }

    @Test
    void serviceLoaderFindsTheSimModel() {
        assertTrue(model instanceof NcclCostModel, model.getClass().getName());
    }

    @Test
    void aLargeRingReachesTheChannelsNcclsSearchFinds() {
        // without the waits of its slices a ring carries what its channels do
        String[][] cases = {
            // topology, profile, NCCL's ring: channels × GB/s
            {"nvlink3", "a100", "240"}, // 6 rings at 40, doubled to 12 at 20
            {"nvlink4", "h100", "360"}, // 6 at 60, doubled to 12 at 30
            {"nvlink2", "v100", "120"}, // DGX-1: 6 rings at 20, one per NVLink of each GPU
            {"pcie4", "rtx4090", "24"} // 2 rings at 12
        };
        for (String[] c : cases) {
            double expected = Double.parseDouble(c[2]);
            for (Collective op : new Collective[] {Collective.ALL_REDUCE, Collective.ALL_GATHER}) {
                double bus = busbw(links(8, 1, c[1], c[0], null, 0), op, 8, 8 * GIB, "ring");
                assertEquals(expected, bus, 0.01 * expected, c[0] + " " + op);
                double waited = busbw(system(8, 1, c[1], c[0], null, 0), op, 8, 8 * GIB, "ring");
                assertTrue(waited < bus && waited > 0.9 * bus, c[0] + " " + op + ": " + waited);
            }
        }
    }

    @Test
    void aSimpleRingWaitsForEverySliceOfEveryLoopOverItsChannels() {
        // A100 over NVSwitch: 24 channels × 8 ranks × NCCL's 2 MiB chunk make a loop of 384 MiB, whose 14 steps
        // pass 2 slices each; 256 bytes more start a second loop
        CostedSystem a100 = system(8, 1, "a100", "nvlink3", null, 0);
        long loop = 384L << 20;
        double one = a100.estimate(Collective.ALL_REDUCE, loop, "ring").seconds();
        double two = a100.estimate(Collective.ALL_REDUCE, loop + 256, "ring").seconds();
        double slice = model.figures().get("latency-scale") * 3.4e-6; // NCCL's Simple ring step over NVLink
        assertEquals(28 * slice, two - one, 0.02 * 28 * slice);
    }

    @Test
    void acrossNodesTheNodesCardsAreTheLimit() {
        // HDR's 25 GB/s behind the GPU's PCIe 4 link (24): one ring per card at 24 GB/s
        CostedSystem twoNodes = links(16, 2, "a100", "nvlink3", "hdr", 4);
        assertEquals(96, busbw(twoNodes, Collective.ALL_REDUCE, 16, 8 * GIB, "ring"), 1);
        CostedSystem oneCard = links(16, 2, "a100", "nvlink3", "hdr", 1);
        assertTrue(busbw(oneCard, Collective.ALL_REDUCE, 16, 8 * GIB, "auto")
                < busbw(twoNodes, Collective.ALL_REDUCE, 16, 8 * GIB, "auto"));
    }

    @Test
    void withoutPeerToPeerHostMemoryIsSharedByEveryGpu() {
        // a desktop's 76.8 GB/s of DDR5: two GPUs' copies fit in it, eight GPUs' do not
        double two = busbw(links(2, 1, "rtx4090", "pcie4-host", null, 0), Collective.ALL_REDUCE, 2, GIB, "ring");
        double eight = busbw(links(8, 1, "rtx4090", "pcie4-host", null, 0), Collective.ALL_REDUCE, 8, GIB, "ring");
        double p2p = busbw(links(8, 1, "rtx4090", "pcie4", null, 0), Collective.ALL_REDUCE, 8, GIB, "ring");
        assertTrue(eight < two && eight < p2p, two + " " + eight + " " + p2p);
    }

    @Test
    void autoTakesWhatNcclsModelCallsFastestLowLatencyProtocolsForSmallSizes() {
        CostedSystem h100 = system(8, 1, "h100", null, null, 0);
        assertEquals("LL", h100.estimate(Collective.ALL_REDUCE, 8, "auto").protocol());
        assertEquals(
                "nvls", h100.estimate(Collective.ALL_REDUCE, 8 * GIB, "auto").algorithm());
        CostedSystem a100 = system(8, 1, "a100", null, null, 0);
        assertEquals("LL", a100.estimate(Collective.ALL_REDUCE, 8, "auto").protocol());
        assertEquals(
                "Simple", a100.estimate(Collective.ALL_REDUCE, 8 * GIB, "auto").protocol());
        // at large sizes NCCL's model and the time agree on the fastest
        for (String algo : new String[] {"ring", "tree"}) {
            assertTrue(a100.estimate(Collective.ALL_REDUCE, 8 * GIB, "auto").seconds()
                    <= a100.estimate(Collective.ALL_REDUCE, 8 * GIB, algo).seconds());
        }
    }

    @Test
    void timeGrowsWithSizeAndWithTheNumberOfGpus() {
        for (Collective op : Collective.values()) {
            double previous = 0;
            for (long bytes = 8; bytes <= 8 * GIB; bytes *= 2) {
                double t = system(8, 1, "t4", null, null, 0)
                        .estimate(op, bytes, "auto")
                        .seconds();
                assertTrue(t >= previous, op + " at " + bytes);
                previous = t;
            }
            assertTrue(system(4, 1, "t4", null, null, 0).estimate(op, 8, "auto").seconds()
                    < system(64, 8, "t4", null, null, 0).estimate(op, 8, "auto").seconds());
        }
    }

    @Test
    void oneGpuCopiesWithinItsMemory() {
        CostedSystem one = system(1, 1, "a100", null, null, 0);
        DeviceProfile a100 = DeviceProfile.named("a100");
        assertEquals(
                2.0 * GIB / a100.memoryBytesPerSec(),
                one.estimate(Collective.ALL_REDUCE, GIB, "auto").seconds());
    }

    @Test
    void oneThreadDrivingEveryGpuMakesSmallCollectivesWaitForItsLaunches() {
        CostedSystem perProcess = model.system(new SystemSpec(8, 1, "h100", null, null, 0, 1));
        CostedSystem oneThread = model.system(new SystemSpec(8, 1, "h100", null, null, 0, 8));
        double launches = 8 * model.figures().get("launch-us") * 1e-6;
        // 8 bytes: the GPUs are done before the thread has launched on all eight
        double gpus = perProcess.estimate(Collective.ALL_REDUCE, 8, "auto").seconds();
        assertTrue(gpus < launches, gpus + " s");
        assertEquals(
                launches, oneThread.estimate(Collective.ALL_REDUCE, 8, "auto").seconds(), 1e-15);
        // 1 GiB: the bytes hide the launches
        assertEquals(
                perProcess.estimate(Collective.ALL_REDUCE, GIB, "auto").seconds(),
                oneThread.estimate(Collective.ALL_REDUCE, GIB, "auto").seconds());
    }

    @Test
    void badSystemsAndAlgorithmsSayWhatToChoose() {
        for (int g : new int[] {0, 9}) {
            assertTrue(assertThrows(
                            DeviceException.class, () -> model.system(new SystemSpec(8, 1, "a100", null, null, 0, g)))
                    .getMessage()
                    .contains("--gpus-per-thread must be from 1 to the 8 GPUs of a node, not " + g));
        }
        assertTrue(assertThrows(DeviceException.class, () -> system(6, 4, "a100", null, null, 0))
                .getMessage()
                .contains("do not split evenly over 4 nodes"));
        assertTrue(assertThrows(DeviceException.class, () -> system(8, 1, "b300", null, null, 0))
                .getMessage()
                .contains("unknown device profile 'b300'"));
        assertTrue(assertThrows(DeviceException.class, () -> system(8, 2, "a100", null, "opa", 0))
                .getMessage()
                .contains("unknown network card 'opa'"));
        CostedSystem a100 = system(8, 1, "a100", null, null, 0);
        assertTrue(assertThrows(DeviceException.class, () -> a100.estimate(Collective.ALL_REDUCE, 8, "nvls"))
                .getMessage()
                .contains("nvlink4"));
        assertTrue(assertThrows(DeviceException.class, () -> a100.estimate(Collective.BROADCAST, 8, "tree"))
                .getMessage()
                .contains("as a ring only"));
        assertTrue(assertThrows(DeviceException.class, () -> a100.estimate(Collective.ALL_REDUCE, 8, "fast"))
                .getMessage()
                .contains("choose auto, ring, tree or nvls"));
    }
}
