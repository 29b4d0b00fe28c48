package org.multigpulab.device;

/**
 * A block of float32 memory on one device, or a view of part of one. Kernels and copies take buffers of the
 * device that runs them; passing another device's buffer is a {@link DeviceException}.
 *
 * <p>Integer data such as class labels is stored as floats, which hold every integer up to 2^24 exactly;
 * one element type keeps the SPI small. Closing a buffer frees its memory; closing a view does nothing.
 * Not thread-safe: a buffer belongs to the one thread driving its device.
 */
public interface Buffer extends AutoCloseable {

    /** The device whose memory this is. */
    Device device();

    /** Number of float elements. */
    int length();

    /** A view of {@code length} elements from {@code offset}; it shares memory and lives as long as this buffer. */
    Buffer slice(int offset, int length);

    /** Frees the memory. Using the buffer afterwards is an error; closing twice is harmless. */
    @Override
    void close();
}
