package org.multigpulab.device;

import java.util.List;

/**
 * What a device has done since it was opened: kernels launched, their floating-point operations and the bytes
 * they read and wrote, the time inside kernel calls (as the host sees it, or the device's own where the backend
 * reads it: {@code opencl} does), bytes moved from and to the host, received from
 * and sent to peer devices (sent is counted where the backend sees both ends, as {@code sim} does), memory
 * in use now and at its peak, and the time per kernel and size, longest first. An immutable snapshot.
 */
public record DeviceStats(
        long kernelLaunches,
        long flops,
        long kernelBytes,
        long kernelNanos,
        long bytesUploaded,
        long bytesDownloaded,
        long bytesFromPeers,
        long bytesToPeers,
        long allocatedBytes,
        long peakAllocatedBytes,
        List<KernelTime> kernelTimes) {

    /** The bytes that crossed a link: uploads, downloads and peer copies. */
    public long bytesMoved() {
        return bytesUploaded + bytesDownloaded + bytesFromPeers;
    }
}
