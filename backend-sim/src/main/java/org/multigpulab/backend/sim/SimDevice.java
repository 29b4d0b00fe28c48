package org.multigpulab.backend.sim;

import org.multigpulab.device.Buffer;
import org.multigpulab.device.BufferBase;
import org.multigpulab.device.Device;
import org.multigpulab.device.DeviceId;
import org.multigpulab.device.DeviceInfo;
import org.multigpulab.device.DeviceStats;
import org.multigpulab.device.InstrumentedKernels;
import org.multigpulab.device.Kernels;
import org.multigpulab.device.OutOfDeviceMemoryException;
import org.multigpulab.device.StatsCounter;

/**
 * One logical GPU: its own buffers, its own memory capacity and its own stats, with kernels that really run
 * on the shared physical device underneath. Buffers of another logical GPU are refused, as a real GPU would
 * refuse a pointer into another card's memory; data moves between them only by {@link #copyFromPeer}.
 */
final class SimDevice implements Device {

    private final SimCluster cluster;
    private final DeviceInfo info;
    private final StatsCounter stats = new StatsCounter();
    private final Kernels kernels;

    SimDevice(SimCluster cluster, DeviceId id, long capacityBytes) {
        this.cluster = cluster;
        this.info = new DeviceInfo(id, "logical GPU on " + cluster.physical().id(), capacityBytes);
        this.kernels = new InstrumentedKernels(this, new SimKernels(cluster.physical().kernels()), stats);
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
        long bytes = (long) length * Float.BYTES;
        long free = info.memoryBytes() - stats.allocatedBytes();
        if (bytes > free) {
            throw new OutOfDeviceMemoryException(id(), bytes, free, info.memoryBytes());
        }
        Buffer physical = cluster.physical().allocate(length);
        stats.allocated(bytes);
        return new SimBuffer(this, physical, true);
    }

    void freed(SimBuffer buffer) {
        stats.freed((long) buffer.length() * Float.BYTES);
    }

    private SimBuffer own(Buffer buffer, String role) {
        return BufferBase.own(this, buffer, SimBuffer.class, role);
    }

    @Override
    public void upload(float[] src, int srcOffset, Buffer dst) {
        SimBuffer d = own(dst, "the upload target");
        cluster.physical().upload(src, srcOffset, d.physical);
        stats.uploaded((long) d.length() * Float.BYTES);
    }

    @Override
    public void download(Buffer src, float[] dst, int dstOffset) {
        SimBuffer s = own(src, "the download source");
        cluster.physical().download(s.physical, dst, dstOffset);
        stats.downloaded((long) s.length() * Float.BYTES);
    }

    @Override
    public void copyFromPeer(Buffer src, Buffer dst) {
        SimBuffer d = own(dst, "the copy target");
        Buffer from = src instanceof SimBuffer s ? s.physical : src;
        cluster.physical().copyFromPeer(from, d.physical);
        long bytes = (long) d.length() * Float.BYTES;
        stats.copiedFromPeer(bytes);
        if (src.device() instanceof SimDevice sender) {
            sender.stats.sentToPeer(bytes);
        }
    }

    @Override
    public Kernels kernels() {
        return kernels;
    }

    @Override
    public void synchronize() {
        cluster.physical().synchronize();
    }

    @Override
    public DeviceStats stats() {
        return stats.snapshot();
    }

    @Override
    public void close() {
        cluster.closed(this);
    }

    @Override
    public String toString() {
        return id().toString();
    }
}
