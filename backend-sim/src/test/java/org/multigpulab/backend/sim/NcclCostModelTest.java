package org.multigpulab.backend.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

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

    private CostedSystem system(int gpus, int nodes, String profile, String topology, String nic, int nics) {
        return model.system(new SystemSpec(gpus, nodes, profile, topology, nic, nics));
    }

    private static double busbw(CostedSystem s, Collective op, int n, long bytes, String algo) {
        return bytes / s.estimate(op, bytes, algo).seconds() * op.busBandwidthFactor(n);
    }

    @Test
    void serviceLoaderFindsTheSimModel() {
        assertTrue(model instanceof NcclCostModel, model.getClass().getName());
    }

    @Test
    void aLargeRingReachesTheLinkShareNcclDelivers() {
        // 8 GiB is long enough for the latency to fade to well under 1 %
        for (String topology : new String[] {"pcie4", "nvlink3"}) {
            double link = Topology.named(topology).peer().bytesPerSec() * NcclSystem.LINK_EFFICIENCY;
            for (Collective op : new Collective[] {Collective.ALL_REDUCE, Collective.ALL_GATHER}) {
                double bus = busbw(system(8, 1, "a100", topology, null, 0), op, 8, 8 * GIB, "ring");
                assertEquals(link, bus, 0.01 * link, topology + " " + op);
            }
        }
    }

    @Test
    void acrossNodesTheNodesCardsAreTheLimit() {
        CostedSystem twoNodes = system(16, 2, "a100", "nvlink3", "hdr", 4);
        double cards = 4 * Nic.named("hdr").bytesPerSec() * NcclSystem.NETWORK_EFFICIENCY;
        assertEquals(cards, busbw(twoNodes, Collective.ALL_REDUCE, 16, 8 * GIB, "ring"), 0.01 * cards);
        CostedSystem oneCard = system(16, 2, "a100", "nvlink3", "hdr", 1);
        assertTrue(busbw(oneCard, Collective.ALL_REDUCE, 16, 8 * GIB, "auto")
                < busbw(twoNodes, Collective.ALL_REDUCE, 16, 8 * GIB, "auto"));
    }

    @Test
    void withoutPeerToPeerHostMemoryIsSharedByEveryGpu() {
        double two = busbw(system(2, 1, "rtx5090", "pcie5-host", null, 0), Collective.ALL_REDUCE, 2, GIB, "ring");
        double eight = busbw(system(8, 1, "rtx5090", "pcie5-host", null, 0), Collective.ALL_REDUCE, 8, GIB, "ring");
        double p2p = busbw(system(8, 1, "rtx5090", "pcie5", null, 0), Collective.ALL_REDUCE, 8, GIB, "ring");
        assertTrue(eight < two && eight < p2p, two + " " + eight + " " + p2p);
    }

    @Test
    void autoIsTheFastestAlgorithmAndSmallSizesUseLowLatencyProtocols() {
        CostedSystem h100 = system(8, 1, "h100", null, null, 0);
        for (long bytes = 8; bytes <= 8 * GIB; bytes *= 8) {
            double auto = h100.estimate(Collective.ALL_REDUCE, bytes, "auto").seconds();
            for (String algo : new String[] {"ring", "tree", "nvls"}) {
                assertTrue(
                        auto
                                <= h100.estimate(Collective.ALL_REDUCE, bytes, algo)
                                        .seconds(),
                        algo + " " + bytes);
            }
        }
        assertEquals("LL", h100.estimate(Collective.ALL_REDUCE, 8, "auto").protocol());
        assertEquals(
                "Simple", h100.estimate(Collective.ALL_REDUCE, 8 * GIB, "auto").protocol());
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
    void badSystemsAndAlgorithmsSayWhatToChoose() {
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
