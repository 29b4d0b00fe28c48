package org.multigpulab.core.parallel;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;

/**
 * The passes of several devices run side by side, as GPUs run them, yet one at a time: each pass on a thread of
 * its own, which hands over to the next pass in device order wherever the passes must meet ({@link #arrive}) or
 * may interleave ({@link #yieldTurn}). What the passes meet for (synchronized BatchNorm's sums) runs once every
 * pass has arrived, on the last one's thread; then the first pass goes on. So kernels are launched in the same
 * order every run, and no two threads ever use the devices at once. The threads are kept from run to run (the
 * {@code cpu} backend keeps its working arrays per thread); {@link #close} ends them.
 */
public final class Lockstep implements AutoCloseable {

    /** Thrown in the other passes when one pass failed, to end them; the failure itself is what {@link #run} throws. */
    private static final class Aborted extends RuntimeException {
        Aborted() {
            super(null, null, false, false);
        }
    }

    private final ExecutorService threads;
    private final int capacity;
    private Semaphore[] turns = new Semaphore[0];
    private boolean[] finished = new boolean[0];
    private int arrived;
    private volatile Throwable failure;

    /** Room for runs of up to {@code passes} passes. */
    public Lockstep(int passes) {
        this.capacity = passes;
        this.threads = Executors.newFixedThreadPool(passes, r -> {
            Thread t = new Thread(r, "lockstep pass");
            t.setDaemon(true);
            return t;
        });
    }

    /** Runs {@code passes}, pass i being told its index, in lockstep; returns when all have ended. */
    public void run(List<Pass> passes) {
        int n = passes.size();
        if (n > capacity) {
            throw new IllegalArgumentException(n + " passes, room for " + capacity);
        }
        turns = new Semaphore[n];
        finished = new boolean[n];
        arrived = 0;
        failure = null;
        for (int i = 0; i < n; i++) {
            turns[i] = new Semaphore(0);
        }
        List<Future<?>> running = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            int index = i;
            running.add(threads.submit(() -> runPass(index, passes.get(index))));
        }
        turns[0].release();
        for (Future<?> f : running) {
            try {
                f.get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while the devices' passes ran", e);
            } catch (ExecutionException e) {
                throw new IllegalStateException(e.getCause());
            }
        }
        switch (failure) {
            case null -> {}
            case RuntimeException e -> throw e;
            case Error e -> throw e;
            default -> throw new IllegalStateException(failure);
        }
    }

    /** One device's pass, told its index and the lockstep it runs in. */
    @FunctionalInterface
    public interface Pass {
        void run(int index);
    }

    private void runPass(int i, Pass pass) {
        try {
            awaitTurn(i);
            pass.run(i);
        } catch (Aborted a) {
            // another pass failed; its failure is the one reported
        } catch (Throwable t) {
            fail(t);
        } finally {
            synchronized (this) {
                finished[i] = true;
                if (failure == null && arrived > 0) {
                    fail(new IllegalStateException("device " + i + "'s pass ended while " + arrived
                            + " others waited for it at a synchronization point: the passes differ"));
                } else if (failure == null) {
                    handOver(next(i));
                }
            }
        }
    }

    /**
     * Pass {@code i} meets the others here: once every unfinished pass has arrived, {@code whenAll} runs on the
     * last one's thread; then the passes go on in order.
     */
    public void arrive(int i, Runnable whenAll) {
        int next;
        synchronized (this) {
            arrived++;
            if (arrived < live()) {
                next = next(i);
            } else {
                arrived = 0;
                try {
                    whenAll.run();
                } catch (Throwable t) {
                    fail(t);
                    throw t;
                }
                next = first();
            }
        }
        if (next != i) {
            handOver(next);
            awaitTurn(i);
        }
    }

    /** Pass {@code i} lets the next pass run a step before it goes on (as GPUs run their passes at once). */
    public void yieldTurn(int i) {
        int next;
        synchronized (this) {
            next = next(i);
        }
        if (next != i) {
            handOver(next);
            awaitTurn(i);
        }
    }

    private int live() {
        int n = 0;
        for (boolean f : finished) {
            n += f ? 0 : 1;
        }
        return n;
    }

    /** The first unfinished pass after {@code i}, round the ring; {@code i} itself if it is the only one; −1 if none. */
    private int next(int i) {
        for (int step = 1; step <= turns.length; step++) {
            int j = (i + step) % turns.length;
            if (!finished[j]) {
                return j;
            }
        }
        return -1;
    }

    private int first() {
        return next(turns.length - 1);
    }

    private void handOver(int to) {
        if (to >= 0) {
            turns[to].release();
        }
    }

    private void awaitTurn(int i) {
        turns[i].acquireUninterruptibly();
        if (failure != null) {
            throw new Aborted();
        }
    }

    private void fail(Throwable t) {
        if (failure == null) {
            failure = t;
        }
        for (Semaphore turn : turns) {
            turn.release(turns.length);
        }
    }

    @Override
    public void close() {
        threads.shutdownNow();
    }
}
