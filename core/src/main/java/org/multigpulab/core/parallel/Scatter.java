package org.multigpulab.core.parallel;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.multigpulab.core.autograd.Workspace;
import org.multigpulab.core.data.HostBatch;
import org.multigpulab.device.Buffer;
import org.multigpulab.device.Device;

/**
 * Splitting data along its first dimension across devices, as {@code nn.parallel.scatter} does, which splits with
 * {@code torch.chunk}: chunks of ceil(rows / k) rows, the last one what is left (256 rows over 3 devices: 86, 86,
 * 84; 10 over 4: 3, 3, 3, 1). When the chunks run out first (6 rows over 4 devices: three chunks of 2) the last
 * devices get no rows; in training such a device computes nothing and adds zero gradients to the sum.
 */
public final class Scatter {

    private Scatter() {}

    /** The rows each of {@code devices} devices gets, as {@code torch.chunk(rows, devices)} splits them: 0 for none. */
    public static int[] shardSizes(int rows, int devices) {
        if (devices <= 0) {
            throw new IllegalArgumentException("need at least one device, got " + devices);
        }
        if (rows < 0) {
            throw new IllegalArgumentException("cannot split " + rows + " rows");
        }
        int[] sizes = new int[devices];
        int chunk = Math.ceilDiv(rows, devices);
        int left = rows;
        for (int i = 0; i < devices && left > 0; i++) {
            sizes[i] = Math.min(chunk, left);
            left -= sizes[i];
        }
        return sizes;
    }

    /**
     * The rows each device gets in the balanced split some samplers use instead ({@code numpy.array_split}): as
     * even as it can be, the first {@code rows % k} devices taking one row more (256 over 3: 86, 85, 85).
     */
    public static int[] balancedSizes(int rows, int devices) {
        if (devices <= 0) {
            throw new IllegalArgumentException("need at least one device, got " + devices);
        }
        int[] sizes = new int[devices];
        for (int i = 0; i < devices; i++) {
            sizes[i] = rows / devices + (i < rows % devices ? 1 : 0);
        }
        return sizes;
    }

    /**
     * The rows each device gets when device {@code i} should take a share proportional to {@code weights[i]}
     * (its measured speed, say): rounded by largest remainder, every device at least one row.
     */
    public static int[] shardSizes(int rows, double[] weights) {
        int k = weights.length;
        if (k == 0 || rows < k) {
            throw new IllegalArgumentException("a batch of " + rows + " cannot be shared by " + k
                    + " devices with at least one row each; use a batch size of at least " + k);
        }
        double total = 0;
        for (double w : weights) {
            if (!(w > 0) || Double.isInfinite(w)) {
                throw new IllegalArgumentException(
                        "shares must be positive and finite, got " + Arrays.toString(weights));
            }
            total += w;
        }
        int[] sizes = new int[k];
        double[] remainder = new double[k];
        int given = 0;
        int spare = rows - k; // one row each first, the rest by weight
        for (int i = 0; i < k; i++) {
            double exact = spare * weights[i] / total;
            sizes[i] = 1 + (int) Math.floor(exact);
            remainder[i] = exact - Math.floor(exact);
            given += sizes[i];
        }
        while (given < rows) {
            int best = 0;
            for (int i = 1; i < k; i++) {
                if (remainder[i] > remainder[best]) {
                    best = i;
                }
            }
            sizes[best]++;
            remainder[best] = -1;
            given++;
        }
        return sizes;
    }

    /**
     * {@code nn.parallel.scatter(data, devices)} for {@code data[rows, rowLength]} on the host: new buffers, one
     * per chunk, so fewer than the devices when the chunks run out first (as PyTorch returns fewer tensors).
     */
    public static List<Buffer> scatter(float[] data, int rows, int rowLength, List<Device> devices) {
        int[] sizes = shardSizes(rows, devices.size());
        List<Buffer> out = new ArrayList<>();
        int row = 0;
        for (int i = 0; i < sizes.length && sizes[i] > 0; i++) {
            Device device = devices.get(i);
            Buffer b = device.allocate(sizes[i] * rowLength);
            device.upload(data, row * rowLength, b);
            out.add(b);
            row += sizes[i];
        }
        return out;
    }

    /**
     * The notebook's {@code split_batch(X, y, devices)}: each device's shard of the images and labels, in buffers
     * taken from that device's workspace (give them back when the step is done); a device without rows gets
     * {@link Shard#none()}.
     */
    public static List<Shard> splitBatch(HostBatch batch, List<Workspace> workspaces) {
        return splitBatch(batch, workspaces, shardSizes(batch.size(), workspaces.size()));
    }

    /** {@link #splitBatch(HostBatch, List)} with the given number of samples per device. */
    public static List<Shard> splitBatch(HostBatch batch, List<Workspace> workspaces, int[] sizes) {
        return splitBatch(batch, workspaces, sizes, 0);
    }

    /**
     * {@link #splitBatch(HostBatch, List, int[])} of the rows from {@code firstRow} on: a process's part of a
     * batch that several processes share.
     */
    public static List<Shard> splitBatch(HostBatch batch, List<Workspace> workspaces, int[] sizes, int firstRow) {
        int sample = batch.sampleLength();
        List<Shard> shards = new ArrayList<>();
        int row = firstRow;
        for (int i = 0; i < sizes.length; i++) {
            if (sizes[i] == 0) {
                shards.add(Shard.none());
                continue;
            }
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
