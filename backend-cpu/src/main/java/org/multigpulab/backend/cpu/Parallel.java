package org.multigpulab.backend.cpu;

import java.util.concurrent.ForkJoinPool;
import java.util.stream.IntStream;

/**
 * Splits a loop over {@code [0, total)} into one contiguous chunk per core and runs the chunks on the common
 * fork-join pool, whose fixed workers plus the calling thread cover every core (no thread per call). Small
 * loops run on the caller alone, where handing out work would cost more than it saves.
 */
final class Parallel {

    /** Work below this many floating-point operations is not worth a second thread. */
    private static final long MIN_PARALLEL_FLOPS = 200_000;

    @FunctionalInterface
    interface RangeBody {
        void run(int chunk, int from, int to);
    }

    private Parallel() {}

    /** The number of chunks a loop is cut into: one per core. */
    static int chunks() {
        return ForkJoinPool.getCommonPoolParallelism() + 1;
    }

    /**
     * Runs {@code body} over contiguous chunks of {@code [0, total)}; chunk {@code c} always covers the same
     * range for the same {@code total}, so per-chunk partial results can be combined in a fixed order.
     */
    static void forRange(int total, long flops, RangeBody body) {
        int chunks = Math.min(total, flops < MIN_PARALLEL_FLOPS ? 1 : chunks());
        if (chunks <= 1) {
            body.run(0, 0, total);
            return;
        }
        IntStream.range(0, chunks)
                .parallel()
                .forEach(c -> body.run(c, (int) ((long) total * c / chunks), (int) ((long) total * (c + 1) / chunks)));
    }
}
