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
