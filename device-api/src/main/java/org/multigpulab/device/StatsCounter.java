package org.multigpulab.device;

import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The running tally behind a device's {@link DeviceStats}: backends add to it as they work and hand out
 * {@link #snapshot()}s. Also a {@link KernelObserver}, so it plugs straight into {@link InstrumentedKernels}.
 * Not thread-safe: it is updated by the thread driving the device.
 */
public final class StatsCounter implements KernelObserver {

    private long kernelLaunches;
    private long flops;
    private long kernelBytes;
    private long kernelNanos;
    private long bytesUploaded;
    private long bytesDownloaded;
    private long bytesFromPeers;
    private long bytesToPeers;
    private long allocatedBytes;
    private long peakAllocatedBytes;

    /** Per kernel and size: launches and nanoseconds. */
    private final Map<KernelSize, long[]> byKernel = new HashMap<>();

    private record KernelSize(String kernel, long flops) {}

    @Override
    public void onKernel(KernelOp.Call call, long nanos) {
        long callFlops = call.flops();
        kernelLaunches++;
        flops += callFlops;
        kernelBytes += call.bytes();
        kernelNanos += nanos;
        long[] tally = byKernel.computeIfAbsent(new KernelSize(call.op().kernelName(), callFlops), k -> new long[2]);
        tally[0]++;
        tally[1] += nanos;
    }

    public void uploaded(long bytes) {
        bytesUploaded += bytes;
    }

    public void downloaded(long bytes) {
        bytesDownloaded += bytes;
    }

    public void copiedFromPeer(long bytes) {
        bytesFromPeers += bytes;
    }

    public void sentToPeer(long bytes) {
        bytesToPeers += bytes;
    }

    /**
     * Checks that {@code bytes} more fit in the capacity of {@code device} before a backend allocates them;
     * an {@link OutOfDeviceMemoryException} naming the device, the bytes asked, free and in all, if not.
     */
    public void checkFits(DeviceInfo device, long bytes) {
        long free = device.memoryBytes() - allocatedBytes;
        if (bytes > free) {
            throw new OutOfDeviceMemoryException(device.id(), bytes, free, device.memoryBytes());
        }
    }

    public void allocated(long bytes) {
        allocatedBytes += bytes;
        peakAllocatedBytes = Math.max(peakAllocatedBytes, allocatedBytes);
    }

    public void freed(long bytes) {
        allocatedBytes -= bytes;
    }

    /** The peak from now on counts from what is allocated now. */
    public void resetPeak() {
        peakAllocatedBytes = allocatedBytes;
    }

    public DeviceStats snapshot() {
        List<KernelTime> kernels = byKernel.entrySet().stream()
                .map(e -> new KernelTime(e.getKey().kernel(), e.getKey().flops(), e.getValue()[0], e.getValue()[1]))
                .sorted(Comparator.comparingLong(KernelTime::nanos).reversed())
                .toList();
        return new DeviceStats(
                kernelLaunches,
                flops,
                kernelBytes,
                kernelNanos,
                bytesUploaded,
                bytesDownloaded,
                bytesFromPeers,
                bytesToPeers,
                allocatedBytes,
                peakAllocatedBytes,
                kernels);
    }
}
