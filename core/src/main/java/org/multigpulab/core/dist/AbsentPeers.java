package org.multigpulab.core.dist;

/**
 * Rank 0 of {@code size} processes whose peers are not there, as when one node of many is timed alone: its
 * collectives leave the data as it is, and there is no group to end, so {@link #abort} throws.
 */
record AbsentPeers(int size) implements ProcessGroup {

    @Override
    public int rank() {
        return 0;
    }

    @Override
    public String description() {
        return "rank 0 of " + size + ", the others not there";
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

    /** The absent ranks are taken to have passed what this one did, as they would have run the same program. */
    @Override
    public boolean allAgree(long value) {
        return true;
    }

    @Override
    public void abort(String why, int exitCode) {
        throw new IllegalStateException(why);
    }

    @Override
    public void close() {}
}
