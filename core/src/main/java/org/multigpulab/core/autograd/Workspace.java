package org.multigpulab.core.autograd;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import org.multigpulab.device.Buffer;
import org.multigpulab.device.Device;

/**
 * Buffers of one device kept for reuse from step to step: a training step asks for the same sizes every time,
 * so after the first step nothing is allocated. Buffers handed out hold whatever they held before. Closing
 * the workspace frees everything it keeps. Not thread-safe.
 */
public final class Workspace implements AutoCloseable {

    private final Device device;
    private final Map<Integer, ArrayDeque<Buffer>> free = new HashMap<>();
    private long bytes;

    public Workspace(Device device) {
        this.device = device;
    }

    public Device device() {
        return device;
    }

    /** A buffer of exactly {@code length} floats with unspecified contents. */
    public Buffer take(int length) {
        ArrayDeque<Buffer> kept = free.get(length);
        if (kept == null || kept.isEmpty()) {
            bytes += (long) length * Float.BYTES;
            return device.allocate(length);
        }
        return kept.pop();
    }

    /**
     * The bytes it has allocated, handed out or kept: the most a step has held at once in activations, their
     * gradients and the step's other temporaries, since it frees nothing until closed.
     */
    public long bytes() {
        return bytes;
    }

    /** Returns a buffer from {@link #take} for later reuse. */
    public void giveBack(Buffer buffer) {
        free.computeIfAbsent(buffer.length(), k -> new ArrayDeque<>()).push(buffer);
    }

    @Override
    public void close() {
        free.values().forEach(q -> q.forEach(Buffer::close));
        free.clear();
    }
}
