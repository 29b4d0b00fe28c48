package org.multigpulab.backend.opencl;

import java.lang.foreign.MemorySegment;
import org.multigpulab.device.Buffer;
import org.multigpulab.device.Device;
import org.multigpulab.device.DeviceException;

/**
 * A buffer of an OpenCL device: a {@code cl_mem} and a window of it in elements. Views share the
 * {@code cl_mem} and carry their offset, which every kernel takes next to the buffer.
 */
final class OpenClBuffer implements Buffer {

    private final OpenClDevice device;
    final MemorySegment mem;
    final int offset;
    private final int length;
    private final boolean owner;
    private boolean closed;

    OpenClBuffer(OpenClDevice device, MemorySegment mem, int offset, int length, boolean owner) {
        this.device = device;
        this.mem = mem;
        this.offset = offset;
        this.length = length;
        this.owner = owner;
    }

    @Override
    public Device device() {
        return device;
    }

    @Override
    public int length() {
        return length;
    }

    @Override
    public Buffer slice(int from, int count) {
        if (from < 0 || count < 0 || from + count > length) {
            throw new DeviceException("slice [" + from + ", " + (from + count) + ") is outside a buffer of " + length);
        }
        return new OpenClBuffer(device, mem, offset + from, count, false);
    }

    @Override
    public void close() {
        if (owner && !closed) {
            closed = true;
            device.free(this);
        }
    }
}
