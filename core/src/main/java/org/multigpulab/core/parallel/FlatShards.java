package org.multigpulab.core.parallel;

import java.util.List;
import org.multigpulab.core.dist.ProcessGroup;
import org.multigpulab.device.Buffer;
import org.multigpulab.device.CollectiveCostModel.Collective;
import org.multigpulab.device.Device;
import org.multigpulab.device.StepPart;

/**
 * Which chunk of the model's flattened parameters ({@link Replica#values()}, Ψ values) each device owns under ZeRO,
 * and the two collectives over one flat buffer per device that ZeRO is made of: {@link #reduceScatter} and
 * {@link #allGather}, over this process's devices and then across the processes, hierarchically as NCCL runs
 * them between nodes. A process's devices split the Ψ values into D chunks as {@link Collectives#chunkOffsets}
 * does; device d of the process of rank r owns part r of chunk d, chunk d split again over the P processes. With
 * one process, device d owns chunk d. Every process must have as many devices. Not thread-safe.
 */
public final class FlatShards {

    private final List<Replica> replicas;
    private final ProcessGroup group;
    private final int[] chunks;

    /** The chunks of {@code replicas}' model over these devices and the processes of {@code group}. */
    public FlatShards(List<Replica> replicas, ProcessGroup group) {
        this.replicas = List.copyOf(replicas);
        this.group = group;
        this.chunks = Collectives.chunkOffsets(replicas.getFirst().length(), replicas.size());
        if (group.size() > 1 && !group.allAgree(replicas.size())) {
            throw new IllegalArgumentException("ZeRO shards the model over every device of every process, and these"
                    + " processes drive different numbers of devices (this one " + replicas.size()
                    + "): give each the same --gpus");
        }
    }

    /** Where the chunk that device {@code device} of this process owns starts in the flattened parameters. */
    public int offset(int device) {
        return chunks[device] + parts(device)[group.rank()];
    }

    /** How many values the chunk that device {@code device} of this process owns has: ⌈Ψ / (D·P)⌉ at most. */
    public int length(int device) {
        int[] parts = parts(device);
        return parts[group.rank() + 1] - parts[group.rank()];
    }

    /** How chunk {@code d} is split over the processes, from its start. */
    private int[] parts(int d) {
        return Collectives.chunkOffsets(chunks[d + 1] - chunks[d], group.size());
    }

    /**
     * {@code reduceScatter} of {@code flat}, one buffer of Ψ per device in device order: afterwards each device's
     * own chunk holds the sum of that chunk over every device of every process (the rest is unspecified).
     */
    public void reduceScatter(List<Buffer> flat) {
        try (OnEveryDevice r = OnEveryDevice.range(replicas, new StepPart.GradientReduceScatter())) {
            Collectives.reduceScatter(flat);
            acrossProcesses(flat, Collective.REDUCE_SCATTER);
        }
    }

    /**
     * {@code allGather} of {@code flat}, one buffer of Ψ per device in device order, each holding its own chunk:
     * afterwards every buffer holds every chunk. {@code before} names what waits for it, for traces.
     */
    public void allGather(List<Buffer> flat, String before) {
        try (OnEveryDevice r = OnEveryDevice.range(replicas, new StepPart.ParameterAllGather(before))) {
            acrossProcesses(flat, Collective.ALL_GATHER);
            Collectives.allGather(flat);
        }
    }

    /**
     * Chunk d of every device d, through the host, reduce-scattered or all-gathered over the processes (on
     * simulated GPUs timed as the network between nodes would take, each process a node).
     */
    private void acrossProcesses(List<Buffer> flat, Collective op) {
        if (group.size() == 1) {
            return;
        }
        for (int d = 0; d < flat.size(); d++) {
            Buffer chunk = flat.get(d).slice(chunks[d], chunks[d + 1] - chunks[d]);
            Device device = chunk.device();
            float[] host = device.download(chunk);
            device.timeline().ifPresent(t -> t.acrossNodes(op, (long) chunk.length() * Float.BYTES, group.size()));
            if (op == Collective.REDUCE_SCATTER) {
                group.reduceScatter(host, parts(d));
                device.upload(host, offset(d) - chunks[d], flat.get(d).slice(offset(d), length(d)));
            } else {
                group.allGather(host, parts(d));
                device.upload(host, 0, chunk);
            }
        }
    }
}
