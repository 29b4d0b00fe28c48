package org.multigpulab.core.parallel;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.multigpulab.core.Synthetic;
import org.multigpulab.device.Buffer;
import org.multigpulab.device.Device;
import org.multigpulab.device.DeviceStats;

/**
 * Every collective on k = 2 … 8 logical GPUs and lengths that k divides and does not: the values exact (small
 * integers sum exactly in float32), and the bytes each device received and sent equal to the algorithm's
 * formula, element for element.
 */
class CollectivesTest {

    static Stream<Arguments> cases() {
        return IntStream.rangeClosed(2, 8)
                .boxed()
                .flatMap(k -> Stream.of(3 * k, 1001, 7).map(n -> Arguments.of(k, n)));
    }

    private record Run(List<float[]> after, long[] received, long[] sent) {}

    private static float value(int device, int j) {
        return (device + 1) * 1000 + j;
    }

    private static Run run(int k, int n, Consumer<List<Buffer>> collective) {
        List<Device> devices = Synthetic.sim(k);
        List<Buffer> data = new ArrayList<>();
        for (int i = 0; i < k; i++) {
            float[] values = new float[n];
            for (int j = 0; j < n; j++) {
                values[j] = value(i, j);
            }
            data.add(devices.get(i).upload(values));
        }
        List<DeviceStats> before = devices.stream().map(Device::stats).toList();
        collective.accept(data);
        long[] received = new long[k], sent = new long[k];
        for (int i = 0; i < k; i++) {
            received[i] =
                    (devices.get(i).stats().bytesFromPeers() - before.get(i).bytesFromPeers()) / Float.BYTES;
            sent[i] = (devices.get(i).stats().bytesToPeers() - before.get(i).bytesToPeers()) / Float.BYTES;
        }
        return new Run(data.stream().map(b -> b.device().download(b)).toList(), received, sent);
    }

    private static float[] sum(int k, int n) {
        float[] s = new float[n];
        for (int j = 0; j < n; j++) {
            for (int i = 0; i < k; i++) {
                s[j] += value(i, j);
            }
        }
        return s;
    }

    private static long chunk(int n, int k, int c) {
        int[] offsets = Collectives.chunkOffsets(n, k);
        int i = Math.floorMod(c, k);
        return offsets[i + 1] - offsets[i];
    }

    /** The notebook's allreduce: reduce onto device 0, then broadcast from it. */
    @ParameterizedTest
    @MethodSource("cases")
    void naiveSumsOnTheRootAndSendsItBack(int k, int n) {
        Run r = run(k, n, Collectives::allReduce);
        for (int i = 0; i < k; i++) {
            assertArrayEquals(sum(k, n), r.after().get(i), "device " + i);
            long expected = i == 0 ? (long) (k - 1) * n : n;
            assertEquals(expected, r.received()[i], "received by " + i);
            assertEquals(expected, r.sent()[i], "sent by " + i);
        }
    }

    /** Tensor t is summed on device t mod k: the naive algorithm's traffic, with that device as the root. */
    @ParameterizedTest
    @MethodSource("cases")
    void spreadRootsTensorTOnDeviceTModK(int k, int n) {
        for (int tensor : new int[] {0, k - 1, k + 1}) {
            int root = tensor % k;
            Run r = run(k, n, data -> AllReduceAlgorithm.SPREAD.allReduce(data, tensor));
            for (int i = 0; i < k; i++) {
                assertArrayEquals(sum(k, n), r.after().get(i), "device " + i);
                long expected = i == root ? (long) (k - 1) * n : n;
                assertEquals(expected, r.received()[i], "tensor " + tensor + ": received by " + i);
                assertEquals(expected, r.sent()[i], "tensor " + tensor + ": sent by " + i);
            }
        }
    }

    /** NCCL's reduce: the sum on the root only, the other buffers as they were. */
    @ParameterizedTest
    @MethodSource("cases")
    void reduceLeavesTheSumOnTheRootOnly(int k, int n) {
        for (int root : new int[] {0, k - 1}) {
            Run r = run(k, n, data -> Collectives.reduce(data, root));
            for (int i = 0; i < k; i++) {
                if (i == root) {
                    assertArrayEquals(sum(k, n), r.after().get(i), "root " + i);
                } else {
                    assertEquals(value(i, n - 1), r.after().get(i)[n - 1], "device " + i + " keeps its own");
                }
                assertEquals(i == root ? (long) (k - 1) * n : 0, r.received()[i], "received by " + i);
                assertEquals(i == root ? 0 : n, r.sent()[i], "sent by " + i);
            }
        }
    }

    @ParameterizedTest
    @MethodSource("cases")
    void ringMovesTwoKMinusOneOverKOfTheBufferPerDevice(int k, int n) {
        Run r = run(k, n, data -> Collectives.allReduce(data, AllReduceAlgorithm.RING));
        for (int i = 0; i < k; i++) {
            assertArrayEquals(sum(k, n), r.after().get(i), "device " + i);
            assertEquals(2L * n - chunk(n, k, i - 1) - chunk(n, k, i), r.received()[i], "received by " + i);
            assertEquals(2L * n - chunk(n, k, i) - chunk(n, k, i + 1), r.sent()[i], "sent by " + i);
        }
        if (n % k == 0) {
            assertEquals(2L * (k - 1) * n / k, r.received()[0], "2(k-1)/k · S");
        }
    }

    @ParameterizedTest
    @MethodSource("cases")
    void ncclsAllreduceMovesAndSumsAsTheRingDoes(int k, int n) {
        Run ring = run(k, n, data -> Collectives.allReduce(data, AllReduceAlgorithm.RING));
        Run nccl = run(k, n, data -> Collectives.allReduce(data, AllReduceAlgorithm.NCCL));
        for (int i = 0; i < k; i++) {
            assertArrayEquals(ring.after().get(i), nccl.after().get(i), "device " + i);
        }
        assertArrayEquals(ring.received(), nccl.received());
        assertArrayEquals(ring.sent(), nccl.sent());
    }

    @ParameterizedTest
    @MethodSource("cases")
    void reduceScatterLeavesChunkIOnDeviceI(int k, int n) {
        Run r = run(k, n, Collectives::reduceScatter);
        int[] offsets = Collectives.chunkOffsets(n, k);
        float[] total = sum(k, n);
        for (int i = 0; i < k; i++) {
            for (int j = offsets[i]; j < offsets[i + 1]; j++) {
                assertEquals(total[j], r.after().get(i)[j], "device " + i + " element " + j);
            }
            assertEquals(n - chunk(n, k, i - 1), r.received()[i], "received by " + i);
        }
    }

    @ParameterizedTest
    @MethodSource("cases")
    void allGatherGivesEveryDeviceEveryChunk(int k, int n) {
        int[] offsets = Collectives.chunkOffsets(n, k);
        float[] expected = new float[n];
        for (int c = 0; c < k; c++) {
            for (int j = offsets[c]; j < offsets[c + 1]; j++) {
                expected[j] = value(c, j); // chunk c comes from device c
            }
        }
        Run r = run(k, n, Collectives::allGather);
        for (int i = 0; i < k; i++) {
            assertArrayEquals(expected, r.after().get(i), "device " + i);
            assertEquals(n - chunk(n, k, i), r.received()[i], "received by " + i);
        }
    }

    @ParameterizedTest
    @MethodSource("cases")
    void treeSumsUpAndBroadcastsDown(int k, int n) {
        Run r = run(k, n, data -> Collectives.allReduce(data, AllReduceAlgorithm.TREE));
        for (int i = 0; i < k; i++) {
            assertArrayEquals(sum(k, n), r.after().get(i), "device " + i);
            int children = (2 * i + 1 < k ? 1 : 0) + (2 * i + 2 < k ? 1 : 0);
            long expected = (long) children * n + (i > 0 ? n : 0);
            assertEquals(expected, r.received()[i], "received by " + i);
            assertEquals(expected, r.sent()[i], "sent by " + i);
        }
    }

    @ParameterizedTest
    @MethodSource("cases")
    void broadcastCopiesTheRootToAll(int k, int n) {
        Run r = run(k, n, data -> Collectives.broadcast(data, 1));
        for (int i = 0; i < k; i++) {
            assertEquals(value(1, n - 1), r.after().get(i)[n - 1], "device " + i);
            assertEquals(i == 1 ? 0 : n, r.received()[i]);
        }
        assertEquals((long) (k - 1) * n, r.sent()[1]);
    }
}
