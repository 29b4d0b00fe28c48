package org.multigpulab.backend.djl;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import org.multigpulab.device.Buffer;
import org.multigpulab.device.BufferBase;

/**
 * A buffer of a DJL device: elements {@code [offset, offset + length)} of a one-dimensional float32 NDArray
 * that lives as long as the buffer that allocated it. Kernels read it through views made in their own
 * short-lived {@link NDManager}, and write it in place with {@link #write}.
 */
final class DjlBuffer extends BufferBase {

    private final DjlDevice device;
    final NDArray root;
    private final int offset;

    DjlBuffer(DjlDevice device, NDArray root, int offset, int length, boolean owner) {
        super(device, length, owner);
        this.device = device;
        this.root = root;
        this.offset = offset;
    }

    private NDIndex range() {
        return new NDIndex().addSliceDim(offset, offset + length());
    }

    /** The elements as a flat NDArray belonging to {@code scope}, which frees it. */
    NDArray read(NDManager scope) {
        return root.get(scope, range());
    }

    /** Overwrites the elements with {@code values} (any shape of {@link #length()} elements). */
    void write(NDArray values) {
        root.set(range(), values.reshape(length()));
    }

    @Override
    protected Buffer view(int from, int count) {
        return new DjlBuffer(device, root, offset + from, count, false);
    }

    @Override
    protected void free() {
        root.close();
        device.freed(this);
    }
}
