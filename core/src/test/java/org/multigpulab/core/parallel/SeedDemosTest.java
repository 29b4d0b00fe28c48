package org.multigpulab.core.parallel;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.multigpulab.core.Synthetic;
import org.multigpulab.device.Buffer;
import org.multigpulab.device.Device;

/** The notebook's printed demos, as assertions. */
class SeedDemosTest {

    @Test
    void allreduceOfOnesTimesDeviceNumberGivesThreeOnBoth() {
        List<Device> devices = Synthetic.sim(2);
        List<Buffer> data = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            data.add(devices.get(i).upload(new float[] {i + 1, i + 1})); // torch.ones((1, 2)) * (i + 1)
        }
        Collectives.allReduce(data);
        assertArrayEquals(new float[] {3, 3}, devices.get(0).download(data.get(0)));
        assertArrayEquals(new float[] {3, 3}, devices.get(1).download(data.get(1)));
    }

    @Test
    void allreduceSumsOverFourDevicesIntoEveryReplica() {
        List<Device> devices = Synthetic.sim(4);
        List<Buffer> data = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            data.add(devices.get(i).upload(new float[] {i, 10 * i, -i}));
        }
        Collectives.allReduce(data);
        for (int i = 0; i < 4; i++) {
            assertArrayEquals(new float[] {6, 60, -6}, devices.get(i).download(data.get(i)), "replica " + i);
        }
    }

    @Test
    void scatterOfArangeTwentySplitsRowsOverTwoDevices() {
        float[] arange = new float[20];
        for (int i = 0; i < 20; i++) {
            arange[i] = i;
        }
        List<Device> devices = Synthetic.sim(2);
        List<Buffer> split = Scatter.scatter(arange, 4, 5, devices);
        assertArrayEquals(
                new float[] {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, devices.get(0).download(split.get(0)));
        assertArrayEquals(
                new float[] {10, 11, 12, 13, 14, 15, 16, 17, 18, 19},
                devices.get(1).download(split.get(1)));
        assertTrue(split.get(1).device() == devices.get(1));
    }

    /** The sizes {@code torch.chunk(torch.arange(n), k)} gives, measured with PyTorch 1.13 (Debian python3-torch). */
    @Test
    void unevenBatchesSplitLikeTorchChunk() {
        assertArrayEquals(new int[] {86, 86, 84}, Scatter.shardSizes(256, 3));
        assertArrayEquals(new int[] {3, 3, 3, 1}, Scatter.shardSizes(10, 4));
        assertArrayEquals(new int[] {2, 2, 2, 0}, Scatter.shardSizes(6, 4));
        assertArrayEquals(new int[] {1, 1, 0, 0}, Scatter.shardSizes(2, 4));
        assertArrayEquals(new int[] {1, 1, 1, 1}, Scatter.shardSizes(4, 4));
        assertArrayEquals(new int[] {256}, Scatter.shardSizes(256, 1));
        assertArrayEquals(new int[] {86, 85, 85}, Scatter.balancedSizes(256, 3));
        assertThrows(IllegalArgumentException.class, () -> Scatter.shardSizes(6, 0));
    }

    /** {@code nn.parallel.scatter} of 3 rows over 4 devices returns 3 tensors, one row each. */
    @Test
    void scatterReturnsOneBufferPerChunk() {
        List<Device> devices = Synthetic.sim(4);
        List<Buffer> split = Scatter.scatter(new float[] {0, 1, 2, 3, 4, 5}, 3, 2, devices);
        assertEquals(3, split.size());
        assertArrayEquals(new float[] {4, 5}, devices.get(2).download(split.get(2)));
    }
}
