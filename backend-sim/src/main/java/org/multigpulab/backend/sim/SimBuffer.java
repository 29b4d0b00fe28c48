package org.multigpulab.backend.sim;

import org.multigpulab.device.Buffer;
import org.multigpulab.device.BufferBase;

/** A buffer of one logical GPU, held in the memory of the physical device underneath. */
final class SimBuffer extends BufferBase {

    private final SimDevice device;
    final Buffer physical;

    SimBuffer(SimDevice device, Buffer physical, boolean owner) {
        super(device, physical.length(), owner);
        this.device = device;
        this.physical = physical;
    }

    @Override
    protected Buffer view(int offset, int count) {
        return new SimBuffer(device, physical.slice(offset, count), false);
    }

    @Override
    protected void free() {
        physical.close();
        device.freed(this);
    }
}
