package org.multigpulab.backend.sim;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Optional;
import org.multigpulab.device.Buffer;
import org.multigpulab.device.BufferBase;
import org.multigpulab.device.Device;
import org.multigpulab.device.DeviceException;
import org.multigpulab.device.DeviceId;
import org.multigpulab.device.DeviceInfo;
import org.multigpulab.device.DeviceStats;
import org.multigpulab.device.InstrumentedKernels;
import org.multigpulab.device.KernelObserver;
import org.multigpulab.device.Kernels;
import org.multigpulab.device.StatsCounter;
import org.multigpulab.device.StepPart;
import org.multigpulab.device.Timeline;

/**
 * One logical GPU: its own buffers, its own memory capacity and its own stats, with kernels that really run
 * on the shared physical device underneath and are timed on the cluster's {@link SimTimeline}. Buffers of
 * another logical GPU are refused, as a real GPU would refuse a pointer into another card's memory; data
 * moves between them only by {@link #copyFromPeer}.
 */
final class SimDevice implements Device {

    private final SimCluster cluster;
    private final int index;
    private final DeviceInfo info;
    private final StatsCounter stats = new StatsCounter();
    private final Kernels kernels;
    private final Kernels commKernels;
    private final Deque<OpenRange> ranges = new ArrayDeque<>();

    SimDevice(SimCluster cluster, int index, long capacityBytes) {
        this.cluster = cluster;
        this.index = index;
        DeviceId id = DeviceId.of(SimBackend.NAME, index);
        this.info = new DeviceInfo(
                id,
                "logical " + cluster.timeline().deviceProfile(index).displayName()
                        + (cluster.physical() == null
                                ? ", time only"
                                : " on " + cluster.physical().id()),
                capacityBytes);
        // with a physical device a call is counted when it runs there (SimCluster#runQueued), not by the gate
        KernelObserver counted = cluster.physical() == null ? stats : (call, nanos) -> {};
        this.kernels = new InstrumentedKernels(this, new SimKernels(cluster, index, false), counted);
        this.commKernels = new InstrumentedKernels(this, new SimKernels(cluster, index, true), counted);
    }

    int index() {
        return index;
    }

    /** Where the cluster counts this GPU's calls as they run. */
    StatsCounter counter() {
        return stats;
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
        stats.checkFits(info, bytes);
        Buffer physical = cluster.physical() == null ? null : cluster.physical().allocate(length);
        stats.allocated(bytes);
        return new SimBuffer(this, physical, length, true, new Hazards(), 0);
    }

    /** Before {@code buffer}'s memory underneath is freed: the calls queued so far may still use it. */
    void freeing(SimBuffer buffer) {
        cluster.runQueued();
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
        if (d.physical != null) {
            cluster.runQueued();
            cluster.physical().upload(src, srcOffset, d.physical);
        }
        long bytes = (long) d.length() * Float.BYTES;
        stats.uploaded(bytes);
        cluster.timeline().upload(index, bytes, d);
    }

    @Override
    public void download(Buffer src, float[] dst, int dstOffset) {
        SimBuffer s = own(src, "the download source");
        if (s.physical != null) {
            cluster.runQueued();
            cluster.physical().download(s.physical, dst, dstOffset);
        }
        long bytes = (long) s.length() * Float.BYTES;
        stats.downloaded(bytes);
        cluster.timeline().download(index, bytes, s);
    }

    @Override
    public void copyFromPeer(Buffer src, Buffer dst) {
        SimBuffer d = own(dst, "the copy target");
        BufferBase.checkSameLength(src, dst);
        long bytes = (long) d.length() * Float.BYTES;
        cluster.runQueued();
        if (src instanceof SimBuffer s && s.device() instanceof SimDevice sender && sender.cluster == cluster) {
            if (d.physical != null) {
                cluster.physical().copyFromPeer(s.physical, d.physical);
            }
            sender.stats.sentToPeer(bytes);
            cluster.timeline().peerCopy(sender.index, index, bytes, s, d);
        } else {
            // a device outside this cluster: its data comes through the host, once that device's calls have run
            if (src instanceof SimBuffer s && s.device() instanceof SimDevice other) {
                other.cluster.runQueued();
            }
            if (d.physical == null) {
                throw new DeviceException("a time-only " + id() + " cannot take data from "
                        + src.device().id());
            }
            cluster.physical().copyFromPeer(src instanceof SimBuffer s ? s.physical : src, d.physical);
            cluster.timeline().upload(index, bytes, d);
        }
        stats.copiedFromPeer(bytes);
    }

    @Override
    public Kernels kernels() {
        return kernels;
    }

    @Override
    public Kernels commKernels() {
        return commKernels;
    }

    @Override
    public void synchronize() {
        if (cluster.physical() != null) {
            cluster.runQueued();
            cluster.physical().synchronize();
        }
        cluster.timeline().synchronize(index);
    }

    @Override
    public DeviceStats stats() {
        cluster.runQueued(); // so that every call made so far is counted
        return stats.snapshot();
    }

    @Override
    public void resetPeakMemory() {
        cluster.runQueued(); // the calls made so far allocate and free first
        stats.resetPeak();
    }

    @Override
    public Optional<Timeline> timeline() {
        return Optional.of(cluster.timeline());
    }

    @Override
    public Range range(StepPart part) {
        OpenRange range = new OpenRange(part.name());
        ranges.push(range);
        cluster.timeline().rangeOpened(index, part);
        return range;
    }

    /** Work on this device occupied {@code [start, end)}: every open range stretches to cover it. */
    void spanned(double start, double end) {
        for (OpenRange r : ranges) {
            r.start = Math.min(r.start, start);
            r.end = Math.max(r.end, end);
        }
    }

    private final class OpenRange implements Range {
        private final String name;
        private double start = Double.POSITIVE_INFINITY;
        private double end = Double.NEGATIVE_INFINITY;

        OpenRange(String name) {
            this.name = name;
        }

        @Override
        public void close() {
            ranges.remove(this);
            if (end > start) {
                cluster.timeline().range(index, name, start, end);
            }
        }
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
