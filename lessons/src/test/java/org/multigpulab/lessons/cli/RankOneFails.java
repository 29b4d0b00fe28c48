package org.multigpulab.lessons.cli;

import org.multigpulab.core.dist.ProcessGroup;

/**
 * {@code --dist mpi-rank-1-fails}: the {@code mpi} process group, except that on rank 1 the third gradient sum
 * across ranks throws, inside the training step, while the other ranks wait for it in {@code MPI_Allreduce}. It
 * throws an {@link IllegalStateException}, or an {@link AssertionError} where the variable {@value #KIND} is
 * {@code error}, as a kernel's failed assertion would. Found by {@code ./lab train} with {@code ServiceLoader}, on
 * the test class path only.
 */
public final class RankOneFails implements ProcessGroup.Provider {

    /** The environment variable that chooses what rank 1 throws: {@code exception} or {@code error}. */
    static final String KIND = "RANK_ONE_FAILS_WITH";
    /** The start of the message of what rank 1 throws. */
    static final String FAULT = "a fault on rank 1";

    private static final int FAILING_CALL = 3;

    @Override
    public String name() {
        return "mpi-rank-1-fails";
    }

    @Override
    public ProcessGroup join() {
        ProcessGroup mpi = ProcessGroup.join("mpi");
        boolean error = "error".equals(System.getenv(KIND));
        return new ProcessGroup() {
            private int calls;

            @Override
            public int rank() {
                return mpi.rank();
            }

            @Override
            public int size() {
                return mpi.size();
            }

            @Override
            public String description() {
                return mpi.description();
            }

            @Override
            public void allReduce(float[] data, int offset, int length) {
                if (mpi.rank() == 1 && ++calls == FAILING_CALL) {
                    String why = FAULT + " in gradient sum " + calls;
                    if (error) {
                        throw new AssertionError(why);
                    }
                    throw new IllegalStateException(why);
                }
                mpi.allReduce(data, offset, length);
            }

            @Override
            public void allReduce(double[] data) {
                mpi.allReduce(data);
            }

            @Override
            public void broadcast(float[] data, int root) {
                mpi.broadcast(data, root);
            }

            @Override
            public void reduceScatter(float[] data, int[] parts) {
                mpi.reduceScatter(data, parts);
            }

            @Override
            public void allGather(float[] data, int[] parts) {
                mpi.allGather(data, parts);
            }

            @Override
            public void abort(String why, int exitCode) {
                mpi.abort(why, exitCode);
            }

            @Override
            public void close() {
                mpi.close();
            }
        };
    }
}
