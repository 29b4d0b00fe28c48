package org.multigpulab.core.parallel;

import java.util.List;
import org.multigpulab.core.dist.ProcessGroup;
import org.multigpulab.device.CollectiveCostModel.Collective;
import org.multigpulab.device.StepPart;

/**
 * The last stage of gradient synchronisation when several processes train together: a range of the gradients,
 * already summed over this process's devices, goes from device 0 to the host, is summed over the processes of a
 * {@link ProcessGroup}, and comes back to every device (hierarchically, as Horovod and NCCL do). Counts the calls
 * and their wall time. In one process it does nothing. Not thread-safe.
 */
final class AcrossProcesses {

    private final List<Replica> replicas;
    private final ProcessGroup group;
    private float[] host;
    private long nanos;
    private long calls;

    AcrossProcesses(List<Replica> replicas, ProcessGroup group) {
        this.replicas = replicas;
        this.group = group;
    }

    /** Sums gradients {@code [offset, offset + length)} of {@link Replica#gradients()} over the processes. */
    void allReduce(int offset, int length) {
        if (group.size() == 1) {
            return;
        }
        long start = System.nanoTime();
        try (OnEveryDevice r = OnEveryDevice.range(replicas, new StepPart.CrossProcessAllReduce(group.size()))) {
            Replica first = replicas.getFirst();
            if (host == null) {
                host = new float[first.gradients().length()];
            }
            first.device().download(first.gradients().slice(offset, length), host, offset);
            // on simulated GPUs the network's time, each process a node
            first.device()
                    .timeline()
                    .ifPresent(t -> t.acrossNodes(Collective.ALL_REDUCE, (long) length * Float.BYTES, group.size()));
            group.allReduce(host, offset, length);
            for (Replica replica : replicas) {
                replica.device().upload(host, offset, replica.gradients().slice(offset, length));
            }
        }
        nanos += System.nanoTime() - start;
        calls++;
    }

    double seconds() {
        return nanos / 1e9;
    }

    long calls() {
        return calls;
    }
}
