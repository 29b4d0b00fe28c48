package org.multigpulab.core.dist;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

/**
 * Ranks of a process group that are threads of one JVM, for tests of training across processes without mpirun:
 * each collective waits for every rank, then each computes the result from all ranks' arrays in rank order (so all
 * get the same sums) and writes its own. {@link #run} starts one thread per rank and returns their results.
 */
public final class ThreadRanks {

    private final int size;
    private final CyclicBarrier barrier;
    private final Object[] slots;

    private ThreadRanks(int size) {
        this.size = size;
        this.barrier = new CyclicBarrier(size);
        this.slots = new Object[size];
    }

    /** {@code work} on each of {@code size} ranks, in its own thread; the results in rank order. */
    public static <T> List<T> run(int size, Function<ProcessGroup, T> work) {
        ThreadRanks ranks = new ThreadRanks(size);
        ExecutorService pool = Executors.newFixedThreadPool(size);
        try {
            List<Future<T>> futures = new ArrayList<>();
            for (int r = 0; r < size; r++) {
                ProcessGroup group = ranks.new Rank(r);
                futures.add(pool.submit(() -> work.apply(group)));
            }
            List<T> results = new ArrayList<>();
            for (Future<T> f : futures) {
                results.add(f.get(10, TimeUnit.MINUTES));
            }
            return results;
        } catch (Exception e) {
            throw new IllegalStateException("a rank failed: " + e, e);
        } finally {
            pool.shutdownNow();
        }
    }

    private void await() {
        try {
            barrier.await(5, TimeUnit.MINUTES);
        } catch (InterruptedException | BrokenBarrierException | TimeoutException e) {
            throw new IllegalStateException("the other ranks did not come", e);
        }
    }

    /** Every rank's {@code mine} shown to all: {@code combine} reads them, then every rank may write its own. */
    private void exchange(int rank, Object mine, Runnable combine) {
        slots[rank] = mine;
        await();
        combine.run();
        await();
    }

    private final class Rank implements ProcessGroup {

        private final int rank;

        Rank(int rank) {
            this.rank = rank;
        }

        @Override
        public int rank() {
            return rank;
        }

        @Override
        public int size() {
            return size;
        }

        @Override
        public String description() {
            return size + " ranks in threads";
        }

        private float[] sum(float[] data, int from, int to) {
            float[] out = new float[to - from];
            for (int r = 0; r < size; r++) {
                float[] theirs = (float[]) slots[r];
                for (int i = from; i < to; i++) {
                    out[i - from] += theirs[i];
                }
            }
            return out;
        }

        @Override
        public void allReduce(float[] data, int offset, int length) {
            float[][] result = new float[1][];
            exchange(rank, data, () -> result[0] = sum(data, offset, offset + length));
            System.arraycopy(result[0], 0, data, offset, length);
            await();
        }

        @Override
        public void allReduce(double[] data) {
            double[] out = new double[data.length];
            exchange(rank, data, () -> {
                for (int r = 0; r < size; r++) {
                    double[] theirs = (double[]) slots[r];
                    for (int i = 0; i < out.length; i++) {
                        out[i] += theirs[i];
                    }
                }
            });
            System.arraycopy(out, 0, data, 0, data.length);
            await();
        }

        @Override
        public void broadcast(float[] data, int root) {
            float[] out = new float[data.length];
            exchange(rank, data, () -> System.arraycopy((float[]) slots[root], 0, out, 0, out.length));
            System.arraycopy(out, 0, data, 0, data.length);
            await();
        }

        @Override
        public void reduceScatter(float[] data, int[] parts) {
            float[][] result = new float[1][];
            exchange(rank, data, () -> result[0] = sum(data, parts[rank], parts[rank + 1]));
            System.arraycopy(result[0], 0, data, parts[rank], result[0].length);
            await();
        }

        @Override
        public void allGather(float[] data, int[] parts) {
            float[] out = new float[data.length];
            exchange(rank, data, () -> {
                for (int r = 0; r < size; r++) {
                    System.arraycopy((float[]) slots[r], parts[r], out, parts[r], parts[r + 1] - parts[r]);
                }
            });
            System.arraycopy(out, parts[0], data, parts[0], parts[size] - parts[0]);
            await();
        }

        @Override
        public void abort(String why, int exitCode) {
            throw new IllegalStateException(why);
        }

        @Override
        public void close() {}
    }
}
