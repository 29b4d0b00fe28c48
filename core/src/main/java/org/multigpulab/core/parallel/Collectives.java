package org.multigpulab.core.parallel;

import java.util.List;
import org.multigpulab.device.Buffer;
import org.multigpulab.device.Device;

/**
 * Collective operations over one buffer per device, named as in NCCL. Each call leaves every device with the
 * result; the buffers must have equal lengths and live on distinct devices.
 */
public final class Collectives {

    private Collectives() {
    }

    /**
     * {@code allReduce} with the seed's naive algorithm: add every device's buffer onto device 0, then copy the
     * sum back into every other device's buffer.
     *
     * <p>The seed's Python rebinds {@code data[i]} to the copy instead of writing into it, so with gradients the
     * replicas other than 0 never see the sum; here the sum is written into each buffer.
     */
    public static void allReduce(List<Buffer> data) {
        allReduce(data, 0);
    }

    /**
     * The naive {@code allReduce} with the sum gathered on device {@code rootIndex} instead of device 0: spreading
     * the roots of different buffers over the devices spreads the work and the traffic (d2l §12.5, exercise 3).
     */
    public static void allReduce(List<Buffer> data, int rootIndex) {
        Buffer root = data.get(rootIndex);
        Device rootDevice = root.device();
        int n = root.length();
        for (Buffer b : data) {
            if (b.length() != n) {
                throw new IllegalArgumentException("allReduce needs equal lengths, got " + n + " and " + b.length()
                        + " on " + b.device().id());
            }
        }
        if (data.size() == 1) {
            return;
        }
        try (Buffer staged = rootDevice.allocate(n)) {
            for (Buffer other : data) {
                if (other != root) {
                    rootDevice.copyFromPeer(other, staged);              // data[i].to(data[0].device)
                    rootDevice.kernels().add(root, staged, root, n);     // data[0][:] += ...
                }
            }
        }
        for (Buffer other : data) {
            if (other != root) {
                other.device().copyFromPeer(root, other);                // data[i][:] = data[0].to(data[i].device)
            }
        }
    }
}
