package org.multigpulab.core.parallel;

import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import org.multigpulab.core.autograd.BatchStatistics;
import org.multigpulab.core.dist.ProcessGroup;
import org.multigpulab.device.Buffer;
import org.multigpulab.device.CollectiveCostModel.Collective;
import org.multigpulab.device.Device;

/**
 * {@code nn.SyncBatchNorm}'s sums: the devices' passes run in {@link Lockstep}, and wherever a BatchNorm sums its
 * per-channel sums ({@link BatchStatistics#allReduce}) every device meets the others, the sums are all-reduced over
 * this process's devices (in device order, onto device 0 and back, {@link Collectives#allReduce}) and then over the
 * processes (through the host, as the gradients cross), and every device goes on with the whole global batch's
 * sums. Closing it ends the passes' threads. Not thread-safe: the lockstep runs one pass at a time.
 */
public final class SynchronizedStatistics implements AutoCloseable {

    private final List<Device> devices;
    private final ProcessGroup processes;
    private final Lockstep lockstep;
    private final Buffer[] posted;
    private final long[] counts;
    private long total;
    private float[] host = new float[0];

    public SynchronizedStatistics(List<Device> devices, ProcessGroup processes) {
        this.devices = List.copyOf(devices);
        this.processes = processes;
        this.lockstep = new Lockstep(devices.size());
        this.posted = new Buffer[devices.size()];
        this.counts = new long[devices.size()];
    }

    /** Runs every device's pass, pass i on device i, in lockstep; device i's statistics are {@link #of}(i). */
    public void run(Lockstep.Pass pass) {
        lockstep.run(Collections.nCopies(devices.size(), pass));
    }

    /** Device {@code i} lets the others run a step of their passes before it goes on. */
    public void yieldTurn(int i) {
        lockstep.yieldTurn(i);
    }

    /** The statistics of device {@code i}'s pass: summed with every other device's and process's. */
    public BatchStatistics of(int i) {
        return (sums, count) -> {
            posted[i] = sums;
            counts[i] = count;
            lockstep.arrive(i, this::sumPosted);
            return total;
        };
    }

    /** Run once every device has posted its sums: all of them summed, over the devices, then the processes. */
    private void sumPosted() {
        List<Buffer> buffers = Arrays.asList(posted.clone());
        long count = Arrays.stream(counts).sum();
        Collectives.allReduce(buffers);
        if (processes.size() > 1) {
            int n = buffers.getFirst().length();
            if (host.length < n) {
                host = new float[n];
            }
            Device first = devices.getFirst();
            first.download(buffers.getFirst(), host, 0);
            first.timeline()
                    .ifPresent(t -> t.acrossNodes(Collective.ALL_REDUCE, (long) n * Float.BYTES, processes.size()));
            processes.allReduce(host, 0, n);
            double[] counted = {count};
            processes.allReduce(counted);
            count = Math.round(counted[0]);
            for (Buffer b : buffers) {
                b.device().upload(host, 0, b.slice(0, n));
            }
        }
        total = count;
        Arrays.fill(posted, null);
    }

    @Override
    public void close() {
        lockstep.close();
    }
}
