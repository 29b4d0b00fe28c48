package org.multigpulab.backend.cpu;

import org.multigpulab.device.Buffer;
import org.multigpulab.device.Device;
import org.multigpulab.device.DeviceException;

/** A buffer of the {@code cpu} device: a window {@code [offset, offset + length)} of a Java float array. */
final class CpuBuffer implements Buffer {

    private final CpuDevice device;
    final float[] data;
    final int offset;
    private final int length;
    private final boolean owner;
    private boolean closed;

    CpuBuffer(CpuDevice device, float[] data, int offset, int length, boolean owner) {
        this.device = device;
        this.data = data;
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
        return new CpuBuffer(device, data, offset + from, count, false);
    }

    @Override
    public void close() {
        if (owner && !closed) {
            closed = true;
            device.freed(this);
        }
    }
}
