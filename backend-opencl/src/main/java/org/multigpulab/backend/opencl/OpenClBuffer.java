package org.multigpulab.backend.opencl;

import java.lang.foreign.MemorySegment;
import org.multigpulab.device.Buffer;
import org.multigpulab.device.BufferBase;

/**
 * A buffer of an OpenCL device: a {@code cl_mem} and a window of it in elements. Views share the
 * {@code cl_mem} and carry their offset, which every kernel takes next to the buffer.
 */
final class OpenClBuffer extends BufferBase {

    private final OpenClDevice device;
    final MemorySegment mem;
    final int offset;

    OpenClBuffer(OpenClDevice device, MemorySegment mem, int offset, int length, boolean owner) {
        super(device, length, owner);
        this.device = device;
        this.mem = mem;
        this.offset = offset;
    }

    @Override
    protected Buffer view(int from, int count) {
        return new OpenClBuffer(device, mem, offset + from, count, false);
    }

    @Override
    protected void free() {
        device.free(this);
    }
}
