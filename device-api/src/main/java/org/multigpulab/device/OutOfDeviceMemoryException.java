package org.multigpulab.device;

/** An allocation that does not fit in what is left of a device's memory; the message names all four figures. */
public final class OutOfDeviceMemoryException extends DeviceException {

    private final long requestedBytes;
    private final long freeBytes;

    public OutOfDeviceMemoryException(DeviceId device, long requestedBytes, long freeBytes, long capacityBytes) {
        super("out of memory on " + device + ": asked for " + requestedBytes + " bytes, " + freeBytes
                + " bytes free of " + capacityBytes + "; use a smaller --batch-size, more devices, or shard the model"
                + " state over them (--zero 1, 2 or 3)");
        this.requestedBytes = requestedBytes;
        this.freeBytes = freeBytes;
    }

    public long requestedBytes() {
        return requestedBytes;
    }

    public long freeBytes() {
        return freeBytes;
    }
}
