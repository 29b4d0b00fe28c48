package org.multigpulab.dist.mpi;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.multigpulab.core.dist.ProcessGroup;

/**
 * The processes of {@code MPI_COMM_WORLD} as a {@link ProcessGroup}. Arrays travel through one native buffer
 * that grows to the largest array sent, so a training step allocates nothing.
 */
final class MpiProcessGroup implements ProcessGroup {

    private final OpenMpi mpi;
    private final int rank;
    private final int size;
    private final String description;
    private final Arena arena = Arena.ofShared();
    private MemorySegment buffer = MemorySegment.NULL;

    MpiProcessGroup(OpenMpi mpi) {
        this.mpi = mpi;
        mpi.initThread();
        this.rank = mpi.rank();
        this.size = mpi.size();
        this.description = mpi.version() + ", " + size + " rank" + (size == 1 ? "" : "s");
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
        return description;
    }

    private MemorySegment buffer(long bytes) {
        if (buffer.byteSize() < bytes) {
            buffer = arena.allocate(Math.max(bytes, 2 * buffer.byteSize()), 64);
        }
        return buffer;
    }

    @Override
    public void allReduce(float[] data, int offset, int length) {
        MemorySegment native_ = buffer((long) length * Float.BYTES);
        MemorySegment.copy(data, offset, native_, ValueLayout.JAVA_FLOAT, 0, length);
        mpi.allReduceInPlace(native_, length, mpi.floatType);
        MemorySegment.copy(native_, ValueLayout.JAVA_FLOAT, 0, data, offset, length);
    }

    @Override
    public void allReduce(double[] data) {
        MemorySegment native_ = buffer((long) data.length * Double.BYTES);
        MemorySegment.copy(data, 0, native_, ValueLayout.JAVA_DOUBLE, 0, data.length);
        mpi.allReduceInPlace(native_, data.length, mpi.doubleType);
        MemorySegment.copy(native_, ValueLayout.JAVA_DOUBLE, 0, data, 0, data.length);
    }

    @Override
    public void broadcast(float[] data, int root) {
        MemorySegment native_ = buffer((long) data.length * Float.BYTES);
        MemorySegment.copy(data, 0, native_, ValueLayout.JAVA_FLOAT, 0, data.length);
        mpi.broadcast(native_, data.length, mpi.floatType, root);
        MemorySegment.copy(native_, ValueLayout.JAVA_FLOAT, 0, data, 0, data.length);
    }

    @Override
    public void reduceScatter(float[] data, int[] parts) {
        int length = parts[size] - parts[0];
        MemorySegment native_ = buffer((long) length * Float.BYTES);
        MemorySegment.copy(data, parts[0], native_, ValueLayout.JAVA_FLOAT, 0, length);
        // in place, the rank's summed part comes back at the start of the buffer
        mpi.reduceScatterInPlace(native_, counts(parts), mpi.floatType);
        MemorySegment.copy(native_, ValueLayout.JAVA_FLOAT, 0, data, parts[rank], parts[rank + 1] - parts[rank]);
    }

    @Override
    public void allGather(float[] data, int[] parts) {
        int length = parts[size] - parts[0];
        MemorySegment native_ = buffer((long) length * Float.BYTES);
        MemorySegment.copy(data, parts[0], native_, ValueLayout.JAVA_FLOAT, 0, length);
        int[] displacements = new int[size];
        for (int r = 0; r < size; r++) {
            displacements[r] = parts[r] - parts[0];
        }
        mpi.allGatherInPlace(native_, counts(parts), displacements, mpi.floatType);
        MemorySegment.copy(native_, ValueLayout.JAVA_FLOAT, 0, data, parts[0], length);
    }

    private int[] counts(int[] parts) {
        if (parts.length != size + 1) {
            throw new IllegalArgumentException(
                    "a collective over " + size + " ranks needs " + (size + 1) + " part bounds, not " + parts.length);
        }
        int[] counts = new int[size];
        for (int r = 0; r < size; r++) {
            counts[r] = parts[r + 1] - parts[r];
        }
        return counts;
    }

    @Override
    public void abort(String why, int exitCode) {
        System.err.println(why);
        System.err.flush();
        mpi.abort(exitCode);
        System.exit(exitCode); // MPI_Abort does not return; should it, the process still ends
    }

    @Override
    public void close() {
        mpi.finish();
    }
}
