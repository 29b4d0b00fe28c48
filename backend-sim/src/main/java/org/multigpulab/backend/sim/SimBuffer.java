package org.multigpulab.backend.sim;

import org.multigpulab.device.Buffer;
import org.multigpulab.device.BufferBase;

/**
 * A buffer of one logical GPU, held in the memory of the physical device underneath, or nowhere in time-only
 * mode ({@code physical} null). Views share the {@link Hazards} of the allocation they were cut from and know
 * where in it they start.
 */
final class SimBuffer extends BufferBase {

    private final SimDevice device;
    final Buffer physical;
    private final Hazards hazards;
    private final int offset;

    SimBuffer(SimDevice device, Buffer physical, int length, boolean owner, Hazards hazards, int offset) {
        super(device, length, owner);
        this.device = device;
        this.physical = physical;
        this.hazards = hazards;
        this.offset = offset;
    }

    double readable() {
        return hazards.readable(offset, length());
    }

    double writable() {
        return hazards.writable(offset, length());
    }

    void written(double end) {
        hazards.written(offset, length(), end);
    }

    void read(double end) {
        hazards.read(offset, length(), end);
    }

    @Override
    protected Buffer view(int from, int count) {
        return new SimBuffer(
                device, physical == null ? null : physical.slice(from, count), count, false, hazards, offset + from);
    }

    @Override
    protected void free() {
        if (physical != null) {
            device.freeing(this);
            physical.close();
        }
        device.freed(this);
    }
}
