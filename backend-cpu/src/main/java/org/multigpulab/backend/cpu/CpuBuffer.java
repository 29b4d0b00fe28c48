package org.multigpulab.backend.cpu;

import org.multigpulab.device.Buffer;
import org.multigpulab.device.BufferBase;

/** A buffer of the {@code cpu} device: a window {@code [offset, offset + length)} of a Java float array. */
final class CpuBuffer extends BufferBase {

    private final CpuDevice device;
    final float[] data;
    final int offset;

    CpuBuffer(CpuDevice device, float[] data, int offset, int length, boolean owner) {
        super(device, length, owner);
        this.device = device;
        this.data = data;
        this.offset = offset;
    }

    @Override
    protected Buffer view(int from, int count) {
        return new CpuBuffer(device, data, offset + from, count, false);
    }

    @Override
    protected void free() {
        device.freed(this);
    }
}
