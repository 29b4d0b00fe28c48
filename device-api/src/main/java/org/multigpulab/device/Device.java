package org.multigpulab.device;

/**
 * One device: memory, the {@link Kernels} that run on it, and a record of what it did.
 *
 * <p>Work may be asynchronous: {@link #synchronize()} waits until everything issued so far has finished, and
 * {@link #download} returns only once the data is on the host. A device is driven by one thread at a time.
 * Closing it frees every buffer it still holds.
 */
public interface Device extends AutoCloseable {

    DeviceId id();

    DeviceInfo info();

    /** A new buffer of {@code length} floats, all zero. */
    Buffer allocate(int length);

    /** Copies {@code dst.length()} floats from {@code src[srcOffset…]} on the host into {@code dst}. */
    void upload(float[] src, int srcOffset, Buffer dst);

    /** Copies all of {@code src} into {@code dst[dstOffset…]} on the host. */
    void download(Buffer src, float[] dst, int dstOffset);

    /**
     * Copies {@code src}, which may live on another device, into {@code dst} on this one; the lengths must match.
     * The bytes count as {@link DeviceStats#bytesFromPeers()} of this device.
     */
    void copyFromPeer(Buffer src, Buffer dst);

    /** The kernels that run on this device; they accept this device's buffers only. */
    Kernels kernels();

    /** Waits until every kernel and copy issued so far has finished. */
    void synchronize();

    DeviceStats stats();

    @Override
    void close();

    /** Convenience: a new buffer holding a copy of {@code values}. */
    default Buffer upload(float[] values) {
        Buffer buffer = allocate(values.length);
        upload(values, 0, buffer);
        return buffer;
    }

    /** Convenience: the whole buffer as a new host array. */
    default float[] download(Buffer src) {
        float[] values = new float[src.length()];
        download(src, values, 0);
        return values;
    }
}
