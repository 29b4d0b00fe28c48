package org.multigpulab.device;

import java.util.Optional;

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

    /**
     * The kernels of the device's communication stream, for the arithmetic inside collectives (the additions of
     * an allreduce), as NCCL runs its reductions beside the compute stream. On a backend that models streams
     * they overlap the kernels of {@link #kernels()}; on the others they are the same kernels.
     */
    default Kernels commKernels() {
        return kernels();
    }

    /** Waits until every kernel and copy issued so far has finished. */
    void synchronize();

    DeviceStats stats();

    /**
     * From now on {@link DeviceStats#peakAllocatedBytes()} counts from what is allocated now, as PyTorch's
     * {@code torch.cuda.reset_peak_memory_stats()}: to read the peak of one stretch of work.
     */
    void resetPeakMemory();

    /** The simulated time of this device and the devices opened with it, when a cost model times them. */
    default Optional<Timeline> timeline() {
        return Optional.empty();
    }

    /**
     * Marks the work issued until the returned range is closed as one part of a training step ({@code allreduce
     * W1}), as NVTX ranges do on CUDA; a backend that records a trace shows it there, a cost model of the host
     * charges it, the others ignore it.
     */
    default Range range(StepPart part) {
        return Range.NONE;
    }

    /** An open {@link #range}; closing it ends the step. */
    interface Range extends AutoCloseable {

        Range NONE = () -> {};

        @Override
        void close();
    }

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
