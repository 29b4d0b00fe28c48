package org.multigpulab.backend.cpu;

import org.multigpulab.device.Buffer;
import org.multigpulab.device.BufferBase;
import org.multigpulab.device.Device;
import org.multigpulab.device.DeviceException;
import org.multigpulab.device.DeviceId;
import org.multigpulab.device.DeviceInfo;
import org.multigpulab.device.DeviceStats;
import org.multigpulab.device.InstrumentedKernels;
import org.multigpulab.device.Kernels;
import org.multigpulab.device.StatsCounter;

/**
 * The machine's processor as one device: buffers are Java arrays, kernels run on all cores, and every call
 * finishes before it returns, so {@link #synchronize()} has nothing to wait for.
 */
final class CpuDevice implements Device {

    private final DeviceInfo info;
    private final StatsCounter stats = new StatsCounter();
    private final Kernels kernels;

    CpuDevice(DeviceId id) {
        Runtime rt = Runtime.getRuntime();
        this.info = new DeviceInfo(id, "pure-Java kernels on " + rt.availableProcessors() + " cores", rt.maxMemory());
        this.kernels = new InstrumentedKernels(this, new CpuKernels(), stats);
    }

    @Override
    public DeviceId id() {
        return info.id();
    }

    @Override
    public DeviceInfo info() {
        return info;
    }

    @Override
    public Buffer allocate(int length) {
        if (length < 0) {
            throw new DeviceException("cannot allocate " + length + " floats on " + id());
        }
        stats.allocated((long) length * Float.BYTES);
        // On a cache line where the JVM allows it, as the kernels' panels (Scratch.LINE_START)
        return new CpuBuffer(this, new float[Scratch.LINE_START + length], Scratch.LINE_START, length, true);
    }

    void freed(CpuBuffer buffer) {
        stats.freed((long) buffer.length() * Float.BYTES);
    }

    private CpuBuffer own(Buffer buffer, String role) {
        return BufferBase.own(this, buffer, CpuBuffer.class, role);
    }

    @Override
    public void upload(float[] src, int srcOffset, Buffer dst) {
        CpuBuffer d = own(dst, "the upload target");
        System.arraycopy(src, srcOffset, d.data, d.offset, d.length());
        stats.uploaded((long) d.length() * Float.BYTES);
    }

    @Override
    public void download(Buffer src, float[] dst, int dstOffset) {
        CpuBuffer s = own(src, "the download source");
        System.arraycopy(s.data, s.offset, dst, dstOffset, s.length());
        stats.downloaded((long) s.length() * Float.BYTES);
    }

    @Override
    public void copyFromPeer(Buffer src, Buffer dst) {
        CpuBuffer d = own(dst, "the copy target");
        BufferBase.checkSameLength(src, d);
        if (src instanceof CpuBuffer s) {
            System.arraycopy(s.data, s.offset, d.data, d.offset, d.length());
        } else {
            // A peer of another backend: stage through the host, as a driver without peer access would.
            float[] staged = src.device().download(src);
            System.arraycopy(staged, 0, d.data, d.offset, d.length());
        }
        stats.copiedFromPeer((long) d.length() * Float.BYTES);
    }

    @Override
    public Kernels kernels() {
        return kernels;
    }

    @Override
    public void synchronize() {
        // Every kernel and copy has finished by the time its call returns.
    }

    @Override
    public DeviceStats stats() {
        return stats.snapshot();
    }

    @Override
    public void resetPeakMemory() {
        stats.resetPeak();
    }

    @Override
    public void close() {
        // Arrays are reclaimed by the garbage collector once the buffers are unreachable.
    }

    @Override
    public String toString() {
        return id().toString();
    }
}
