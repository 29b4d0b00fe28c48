package org.multigpulab.backend.cpu;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntConsumer;

/**
 * Splits a loop over {@code [0, total)} into contiguous chunks, one per core or a few per core for a large loop,
 * and runs the chunks on a team of helper threads, one per core after the first, with the calling thread; each
 * thread claims the next chunk when it has finished one. Small loops run on the caller alone, where handing out
 * work would cost more than it saves.
 *
 * <p>A helper that finds no work waits a while before it parks, as OpenMP's threads do: first spinning, then
 * yielding its core to any thread that wants it. Waking a parked thread costs more than a small kernel, and a loop
 * posted while its helper is parked mostly runs on the caller alone, which claims the chunks first. Between a
 * training step's parallel loops the caller often works alone for longer than the spin (small kernels, the tape,
 * the simulator's bookkeeping), so the helper yields up to {@link #YIELD_NANOS} before it parks, which keeps it
 * awake for most of a step's loops. One loop runs on the team at a time; a loop that
 * finds it busy (another thread's, or one started inside a chunk) runs its chunks one after another on its own
 * thread, the same chunks, so that per-chunk partial results are the same either way.
 */
final class Parallel {

    /** Work below this many floating-point operations is not worth a second thread. */
    private static final long MIN_PARALLEL_FLOPS = 200_000;

    /**
     * The least work a chunk keeps when a core's share is cut in more than one (up to
     * {@link #MOST_CHUNKS_PER_CORE}): on a shared machine the hypervisor stalls a core now and then, and with one
     * chunk per core the other waits at the end of the loop; with several, it takes the stalled core's chunks
     * still unclaimed. Below it, what each chunk costs (partial sums, a shorter run) outweighs that.
     */
    private static final long FLOPS_PER_EXTRA_CHUNK = 100_000_000;

    private static final int MOST_CHUNKS_PER_CORE = 4;

    /** How long a helper spins for the next loop before it yields. */
    private static final long SPIN_NANOS = 50_000;

    /**
     * How long a helper waits for the next loop, spinning and then yielding, before it parks: longer than most
     * gaps between a training step's parallel loops, short enough that an idle lab gives its cores back at once.
     */
    private static final long YIELD_NANOS = 2_000_000;

    @FunctionalInterface
    interface RangeBody {
        void run(int chunk, int from, int to);
    }

    private static final Team TEAM = new Team(Runtime.getRuntime().availableProcessors() - 1);

    private Parallel() {}

    /**
     * The number of chunks {@link #forRange} cuts a loop of {@code total} items and {@code flops} of work into:
     * one for a small loop; else one per core, or more for a large one, at most one per item. Callers that keep
     * per-chunk partial sums size them with it.
     */
    static int chunks(int total, long flops) {
        int cores = cores();
        if (flops < MIN_PARALLEL_FLOPS || cores == 1) {
            return 1;
        }
        long perCore = Math.clamp(flops / (cores * FLOPS_PER_EXTRA_CHUNK), 1, MOST_CHUNKS_PER_CORE);
        return (int) Math.min(total, cores * perCore);
    }

    /**
     * Runs {@code body} over contiguous chunks of {@code [0, total)}; chunk {@code c} always covers the same
     * range for the same {@code total}, so per-chunk partial results can be combined in a fixed order.
     */
    static void forRange(int total, long flops, RangeBody body) {
        int chunks = chunks(total, flops);
        if (chunks <= 1) {
            body.run(0, 0, total);
            return;
        }
        if (!TEAM.run(new Loop(body, total, chunks))) {
            for (int c = 0; c < chunks; c++) {
                body.run(c, from(total, c, chunks), from(total, c + 1, chunks));
            }
        }
    }

    /**
     * Runs {@code body.accept(i)} for every {@code i} in {@code [0, count)}, each a chunk of its own, claimed by
     * whichever thread of the team is free; loops started inside run on their thread alone.
     */
    static void forEach(int count, IntConsumer body) {
        RangeBody each = (chunk, from, to) -> body.accept(chunk);
        if (count <= 1 || !TEAM.run(new Loop(each, count, count))) {
            for (int i = 0; i < count; i++) {
                body.accept(i);
            }
        }
    }

    /** The cores the team runs on: its helpers and the calling thread. */
    static int cores() {
        return TEAM.helpers.length + 1;
    }

    private static int from(int total, int chunk, int chunks) {
        return (int) ((long) total * chunk / chunks);
    }

    /** One loop handed to the team: its chunks are claimed one at a time by whichever thread is free. */
    private record Loop(
            RangeBody body,
            int total,
            int chunks,
            AtomicInteger next,
            AtomicInteger left,
            AtomicReference<Throwable> failure) {
        Loop(RangeBody body, int total, int chunks) {
            this(body, total, chunks, new AtomicInteger(), new AtomicInteger(chunks), new AtomicReference<>());
        }

        /** Runs chunks until none is left to claim. */
        void work() {
            for (int c = next.getAndIncrement(); c < chunks; c = next.getAndIncrement()) {
                try {
                    body.run(c, from(total, c, chunks), from(total, c + 1, chunks));
                } catch (Throwable t) {
                    failure.compareAndSet(null, t);
                } finally {
                    left.decrementAndGet();
                }
            }
        }
    }

    /** The helper threads and the loop they work on. */
    private static final class Team {
        private final Helper[] helpers;
        private final AtomicBoolean busy = new AtomicBoolean();
        private volatile Loop loop;
        /** Raised for every loop; a helper has work when it differs from the one it last saw. */
        private volatile long generation;

        Team(int size) {
            helpers = new Helper[Math.max(0, size)];
            for (int i = 0; i < helpers.length; i++) {
                helpers[i] = new Helper(this);
                Thread thread = Thread.ofPlatform()
                        .daemon()
                        .name("cpu-kernels-" + (i + 1))
                        .unstarted(helpers[i]);
                helpers[i].thread = thread;
                thread.start();
            }
        }

        /** Runs {@code l} with the helpers; false, running nothing, when the team is busy with another loop. */
        boolean run(Loop l) {
            if (helpers.length == 0 || !busy.compareAndSet(false, true)) {
                return false;
            }
            try {
                loop = l;
                generation++;
                for (Helper h : helpers) {
                    if (h.parked) {
                        LockSupport.unpark(h.thread);
                    }
                }
                l.work();
                // the last chunks are a helper's: spin for them a while, then yield the core in case the helper
                // waits for one (more processes than cores, as under mpirun -np 4 on two)
                long waiting = System.nanoTime();
                while (l.left().get() > 0) {
                    if (System.nanoTime() - waiting < SPIN_NANOS) {
                        Thread.onSpinWait();
                    } else {
                        Thread.yield();
                    }
                }
            } finally {
                loop = null;
                busy.set(false);
            }
            Throwable failed = l.failure().get();
            if (failed instanceof RuntimeException e) {
                throw e;
            }
            if (failed instanceof Error e) {
                throw e;
            }
            if (failed != null) {
                throw new IllegalStateException(failed);
            }
            return true;
        }
    }

    private static final class Helper implements Runnable {
        private final Team team;
        private Thread thread;
        private volatile boolean parked;

        Helper(Team team) {
            this.team = team;
        }

        @Override
        public void run() {
            long seen = team.generation;
            while (true) {
                long now = awaitNext(seen);
                seen = now;
                Loop l = team.loop;
                if (l != null) {
                    l.work();
                }
            }
        }

        /** Waits until a loop after {@code seen} is posted: spinning a while, then yielding, then parked. */
        private long awaitNext(long seen) {
            long start = System.nanoTime();
            while (team.generation == seen) {
                long waited = System.nanoTime() - start;
                if (waited < SPIN_NANOS) {
                    Thread.onSpinWait();
                } else if (waited < YIELD_NANOS) {
                    Thread.yield();
                } else {
                    parked = true;
                    if (team.generation == seen) {
                        LockSupport.park(this);
                    }
                    parked = false;
                }
            }
            return team.generation;
        }
    }
}
