package org.multigpulab.core.parallel;

import java.util.ArrayList;
import java.util.List;
import org.multigpulab.core.autograd.Workspace;
import org.multigpulab.core.data.HostBatch;
import org.multigpulab.device.Buffer;
import org.multigpulab.device.Device;

/**
 * Splitting data along its first dimension across devices, as {@code nn.parallel.scatter} does: as evenly as
 * possible, the first {@code rows % k} devices taking one row more (256 rows over 3 devices: 86, 85, 85).
 */
public final class Scatter {

    private Scatter() {
    }

    /**
     * The rows each of {@code devices} devices gets.
     *
     * @throws IllegalArgumentException when there are fewer rows than devices, since a device would get none
     */
    public static int[] shardSizes(int rows, int devices) {
        if (devices <= 0) {
            throw new IllegalArgumentException("need at least one device, got " + devices);
        }
        if (rows < devices) {
            throw new IllegalArgumentException("a batch of " + rows + " cannot be split over " + devices
                    + " devices: each needs at least one sample; use a batch size of at least " + devices);
        }
        int[] sizes = new int[devices];
        for (int i = 0; i < devices; i++) {
            sizes[i] = rows / devices + (i < rows % devices ? 1 : 0);
        }
        return sizes;
    }

    /** {@code nn.parallel.scatter(data, devices)} for {@code data[rows, rowLength]} on the host: new buffers. */
    public static List<Buffer> scatter(float[] data, int rows, int rowLength, List<Device> devices) {
        int[] sizes = shardSizes(rows, devices.size());
        List<Buffer> out = new ArrayList<>();
        int row = 0;
        for (int i = 0; i < sizes.length; i++) {
            Device device = devices.get(i);
            Buffer b = device.allocate(sizes[i] * rowLength);
            device.upload(data, row * rowLength, b);
            out.add(b);
            row += sizes[i];
        }
        return out;
    }

    /**
     * The seed's {@code split_batch(X, y, devices)}: each device's shard of the images and labels, in buffers
     * taken from that device's workspace (give them back when the step is done).
     */
    public static List<Shard> splitBatch(HostBatch batch, List<Workspace> workspaces) {
        int[] sizes = shardSizes(batch.size(), workspaces.size());
        int sample = batch.sampleLength();
        List<Shard> shards = new ArrayList<>();
        int row = 0;
        for (int i = 0; i < sizes.length; i++) {
            Workspace ws = workspaces.get(i);
            Buffer x = ws.take(sizes[i] * sample);
            Buffer y = ws.take(sizes[i]);
            ws.device().upload(batch.x(), row * sample, x);
            ws.device().upload(batch.y(), row, y);
            shards.add(new Shard(x, y, sizes[i]));
            row += sizes[i];
        }
        return shards;
    }
}
