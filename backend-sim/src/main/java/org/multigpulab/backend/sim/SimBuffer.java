package org.multigpulab.backend.sim;

import org.multigpulab.device.Buffer;
import org.multigpulab.device.Device;

/** A buffer of one logical GPU, held in the memory of the physical device underneath. */
final class SimBuffer implements Buffer {

    private final SimDevice device;
    final Buffer physical;
    private final boolean owner;
    private boolean closed;

    SimBuffer(SimDevice device, Buffer physical, boolean owner) {
        this.device = device;
        this.physical = physical;
        this.owner = owner;
    }

    @Override
    public Device device() {
        return device;
    }

    @Override
    public int length() {
        return physical.length();
    }

    @Override
    public Buffer slice(int offset, int length) {
        return new SimBuffer(device, physical.slice(offset, length), false);
    }

    @Override
    public void close() {
        if (owner && !closed) {
            closed = true;
            physical.close();
            device.freed(this);
        }
    }
}
