package org.multigpulab.device;

/**
 * What every backend's {@link Buffer} shares: its device and length, range-checked views, and freeing the
 * memory once, by the buffer that allocated it and never by a view. A backend adds where the memory is.
 */
public abstract class BufferBase implements Buffer {

    private final Device device;
    private final int length;
    private final boolean owner;
    private boolean closed;

    /** {@code owner}: this buffer allocated the memory and frees it on close; views pass {@code false}. */
    protected BufferBase(Device device, int length, boolean owner) {
        this.device = device;
        this.length = length;
        this.owner = owner;
    }

    @Override
    public final Device device() {
        return device;
    }

    @Override
    public final int length() {
        return length;
    }

    @Override
    public final Buffer slice(int offset, int count) {
        if (offset < 0 || count < 0 || offset + count > length) {
            throw new DeviceException(
                    "slice [" + offset + ", " + (offset + count) + ") is outside a buffer of " + length);
        }
        return view(offset, count);
    }

    /** A view of {@code count} elements from {@code offset}, already checked to lie inside this buffer. */
    protected abstract Buffer view(int offset, int count);

    /** Frees the memory; called at most once, and only on the buffer that allocated it. */
    protected abstract void free();

    @Override
    public final void close() {
        if (owner && !closed) {
            closed = true;
            free();
        }
    }

    /**
     * {@code buffer} as {@code type}, when it belongs to {@code device}; else a {@link DeviceException} naming
     * its {@code role} and both devices.
     */
    public static <T extends Buffer> T own(Device device, Buffer buffer, Class<T> type, String role) {
        if (buffer.device() != device) {
            throw new DeviceException(role + " lives on " + buffer.device().id() + ", not on " + device.id());
        }
        return type.cast(buffer);
    }

    /** Checks that a peer copy's source and target have the same length. */
    public static void checkSameLength(Buffer src, Buffer dst) {
        if (src.length() != dst.length()) {
            throw new DeviceException("copy from " + src.device().id() + " to "
                    + dst.device().id() + ": lengths differ (" + src.length() + " and " + dst.length() + ")");
        }
    }
}
