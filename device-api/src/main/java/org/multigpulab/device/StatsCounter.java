package org.multigpulab.device;

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

    @Override
    public void onKernel(KernelCost cost, long nanos) {
        kernelLaunches++;
        flops += cost.flops();
        kernelBytes += cost.bytes();
        kernelNanos += nanos;
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

    public DeviceStats snapshot() {
        return new DeviceStats(kernelLaunches, flops, kernelBytes, kernelNanos,
                bytesUploaded, bytesDownloaded, bytesFromPeers, bytesToPeers, allocatedBytes, peakAllocatedBytes);
    }
}
