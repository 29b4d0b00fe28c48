package org.multigpulab.core.dist;

import java.util.ServiceLoader;

/**
 * The processes that train one model together, as {@code torch.distributed}'s process group: each has a rank
 * in {@code [0, size)}, and they sum arrays and share rank 0's data with collective calls that every rank makes
 * in the same order. {@link #SINGLE} is one process alone; an implementation over MPI comes from a
 * {@link Provider} found by name ({@code mpi}) with {@link ServiceLoader}, so {@code core} never names it.
 *
 * <p>Collectives are called by one thread of each process, the one that drives its devices.
 */
public interface ProcessGroup extends AutoCloseable {

    int rank();

    int size();

    /** What connects the processes, for people: {@code "Open MPI v4.1.4, 2 ranks"}. */
    String description();

    /** Sums {@code data[offset, offset + length)} over all ranks, in place on every rank. */
    void allReduce(float[] data, int offset, int length);

    /** Sums {@code data} over all ranks, in place on every rank (for counts and loss sums). */
    void allReduce(double[] data);

    /** Copies rank {@code root}'s {@code data} into {@code data} on every other rank. */
    void broadcast(float[] data, int root);

    /**
     * {@code MPI_Reduce_scatter}: sums {@code data[parts[0], parts[size])} over all ranks; afterwards rank r's part,
     * {@code [parts[r], parts[r + 1])}, holds its sum, and the rest of {@code data} is unspecified.
     */
    void reduceScatter(float[] data, int[] parts);

    /**
     * {@code MPI_Allgatherv}: rank r's part of {@code data}, {@code [parts[r], parts[r + 1])}, copied into the same
     * place on every other rank.
     */
    void allGather(float[] data, int[] parts);

    /**
     * Whether every rank passed the same {@code value} (a hash of what each read, say); every rank gets the same
     * answer. One {@link #allReduce(double[])} of the value's four 16-bit pieces and their squares: the ranks agree
     * exactly when, for each piece, size · Σ piece² equals (Σ piece)², all sums exact in a double.
     */
    default boolean allAgree(long value) {
        double[] sums = new double[8];
        for (int i = 0; i < 4; i++) {
            double piece = (value >>> (16 * i)) & 0xffff;
            sums[i] = piece;
            sums[4 + i] = piece * piece;
        }
        allReduce(sums);
        for (int i = 0; i < 4; i++) {
            if (size() * sums[4 + i] != sums[i] * sums[i]) {
                return false;
            }
        }
        return true;
    }

    /**
     * Ends every process of the group because this one cannot go on; {@code why} is printed first. Does not
     * return.
     */
    void abort(String why, int exitCode);

    @Override
    void close();

    /**
     * Rank 0 of {@code size} processes whose peers are not there (one node of many timed alone, a test of rank
     * 0's part): collectives leave the data as it is; {@link #abort} throws.
     */
    static ProcessGroup firstOfAbsent(int size) {
        return new AbsentPeers(size);
    }

    /** One process on its own: collectives leave the data as it is. */
    ProcessGroup SINGLE = new ProcessGroup() {
        @Override
        public int rank() {
            return 0;
        }

        @Override
        public int size() {
            return 1;
        }

        @Override
        public String description() {
            return "one process";
        }

        @Override
        public void allReduce(float[] data, int offset, int length) {}

        @Override
        public void allReduce(double[] data) {}

        @Override
        public void broadcast(float[] data, int root) {}

        @Override
        public void reduceScatter(float[] data, int[] parts) {}

        @Override
        public void allGather(float[] data, int[] parts) {}

        @Override
        public void abort(String why, int exitCode) {
            System.err.println(why);
            System.exit(exitCode);
        }

        @Override
        public void close() {}
    };

    /** Makes process groups of one kind, found with {@link ServiceLoader} by {@link #name()}. */
    interface Provider {

        String name();

        /** The group this process belongs to, as its launcher ({@code mpirun}, {@code srun}) set it up. */
        ProcessGroup join();
    }

    /** The group of the kind called {@code name}; {@code none} is {@link #SINGLE}. */
    static ProcessGroup join(String name) {
        if (name.equals("none")) {
            return SINGLE;
        }
        for (Provider p : ServiceLoader.load(Provider.class)) {
            if (p.name().equals(name)) {
                return p.join();
            }
        }
        throw new IllegalArgumentException("no process group called '" + name + "'; choose none or mpi");
    }
}
