package org.multigpulab.backend.cpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;

/**
 * Every element of a loop is run once, in the same chunks whichever thread runs them, whether the team of helper
 * threads takes the loop or it finds the team busy (a loop inside a chunk, loops from several threads at once);
 * a chunk's failure reaches the caller.
 */
class ParallelTest {

    private static final long LARGE = 1L << 30;

    @Test
    void runsEveryElementOnceInFixedChunks() {
        for (int total : new int[] {2, 3, 17, 1000, 100_003}) {
            AtomicIntegerArray runs = new AtomicIntegerArray(total);
            int chunks = Parallel.chunks(total, LARGE);
            int[][] ranges = new int[chunks][];
            Parallel.forRange(total, LARGE, (chunk, from, to) -> {
                ranges[chunk] = new int[] {from, to};
                for (int i = from; i < to; i++) {
                    runs.incrementAndGet(i);
                }
            });
            for (int i = 0; i < total; i++) {
                assertEquals(1, runs.get(i), "element " + i + " of " + total);
            }
            for (int c = 0; c < chunks; c++) {
                assertEquals((int) ((long) total * c / chunks), ranges[c][0], "chunk " + c + " of " + total);
                assertEquals((int) ((long) total * (c + 1) / chunks), ranges[c][1], "chunk " + c + " of " + total);
            }
        }
    }

    @Test
    void forEachRunsEveryIndexOnceWithItsLoopsInTheirUsualChunks() {
        int total = 10_000, chunks = Parallel.chunks(total, LARGE);
        for (int count : new int[] {1, 2, 3, 8}) {
            AtomicIntegerArray runs = new AtomicIntegerArray(count);
            int[][] seen = new int[count][chunks];
            Parallel.forEach(count, i -> {
                runs.incrementAndGet(i);
                Parallel.forRange(total, LARGE, (chunk, from, to) -> seen[i][chunk] = to - from);
            });
            for (int i = 0; i < count; i++) {
                assertEquals(1, runs.get(i), "index " + i + " of " + count);
                for (int c = 0; c < chunks; c++) {
                    int expected = (int) ((long) total * (c + 1) / chunks - (long) total * c / chunks);
                    assertEquals(expected, seen[i][c], "chunk " + c + " of the loop inside index " + i);
                }
            }
        }
    }

    @Test
    void aLargeLoopIsCutInSeveralChunksPerCoreASmallOneIsNot() {
        int cores = Runtime.getRuntime().availableProcessors();
        assertEquals(1, Parallel.chunks(1000, 1000), "a loop too small to share");
        assertEquals(Math.min(cores, 1000), Parallel.chunks(1000, 2_000_000), "a loop worth one chunk per core");
        int most = cores == 1 ? 1 : 4 * cores;
        assertEquals(most, Parallel.chunks(1000, LARGE), "a loop worth several chunks per core");
        assertEquals(Math.min(most, 3), Parallel.chunks(3, LARGE), "never more chunks than items");
        for (long flops = 1; flops < LARGE; flops *= 3) {
            assertTrue(Parallel.chunks(1000, flops) <= Parallel.chunks(1000, flops * 3), "more work, no fewer chunks");
        }
    }

    @Test
    void aLoopInsideAChunkAndLoopsFromManyThreadsAllFinish() throws Exception {
        int total = 10_000;
        ExecutorService callers = Executors.newFixedThreadPool(4);
        try {
            List<Future<long[]>> sums = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                sums.add(callers.submit(() -> {
                    int outerChunks = Parallel.chunks(4, LARGE), innerChunks = Parallel.chunks(total, LARGE);
                    long[] sum = new long[outerChunks * innerChunks];
                    for (int round = 0; round < 200; round++) {
                        Parallel.forRange(
                                4,
                                LARGE,
                                (outer, from, to) -> Parallel.forRange(total, LARGE, (inner, a, b) -> {
                                    for (int i = a; i < b; i++) {
                                        sum[outer * innerChunks + inner] += i;
                                    }
                                }));
                    }
                    return sum;
                }));
            }
            for (Future<long[]> f : sums) {
                long[] sum = f.get(2, TimeUnit.MINUTES);
                long all = 0;
                for (long s : sum) {
                    all += s;
                }
                assertEquals(200L * Parallel.chunks(4, LARGE) * total * (total - 1) / 2, all);
            }
        } finally {
            callers.shutdownNow();
        }
    }

    @Test
    void aChunksFailureReachesTheCallerAndTheTeamWorksOn() {
        IllegalStateException thrown = new IllegalStateException("chunk failed");
        IllegalStateException caught = assertThrows(
                IllegalStateException.class,
                () -> Parallel.forRange(1000, LARGE, (chunk, from, to) -> {
                    if (chunk == Parallel.chunks(1000, LARGE) - 1) {
                        throw thrown;
                    }
                }));
        assertSame(thrown, caught);
        AtomicIntegerArray runs = new AtomicIntegerArray(1000);
        Parallel.forRange(1000, LARGE, (chunk, from, to) -> {
            for (int i = from; i < to; i++) {
                runs.incrementAndGet(i);
            }
        });
        for (int i = 0; i < 1000; i++) {
            assertTrue(runs.get(i) == 1, "element " + i + " after a failed loop");
        }
    }
}
