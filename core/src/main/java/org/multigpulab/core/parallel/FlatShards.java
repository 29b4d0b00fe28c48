package org.multigpulab.core.parallel;

import java.util.List;
import org.multigpulab.core.autograd.Ops;
import org.multigpulab.core.dist.ProcessGroup;
import org.multigpulab.device.Buffer;
import org.multigpulab.device.CollectiveCostModel.Collective;
import org.multigpulab.device.Device;
import org.multigpulab.device.StepPart;

/**
 * Which chunk of the model's flattened parameters ({@link Replica#values()}, Ψ values) each device owns under ZeRO,
 * and the collectives ZeRO is made of: a bucket of gradients {@link #reduceScatter reduce-scattered} onto the
 * devices that own its parts, the parameters {@link #allGather all-gathered} into every replica after an update,
 * and a layer's parameters {@link #gather gathered} onto one device for a pass; over this process's devices and then
 * across the processes, hierarchically as NCCL runs them between nodes. A process's devices split the Ψ values into D chunks as {@link Collectives#chunkOffsets}
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
     * Where the chunk device {@code device} owns meets the flattened parameters' range {@code [from, from + length)}:
     * its start, and its length (0 where they do not meet).
     */
    public int[] ownedWithin(int device, int from, int length) {
        int start = Math.max(from, offset(device));
        int end = Math.min(from + length, offset(device) + length(device));
        return new int[] {start, Math.max(0, end - start)};
    }

    /**
     * {@code reduceScatter} of a range of the flattened gradients, {@code [from, from + length)}, one buffer of it
     * per device in device order (a bucket): afterwards the part of it that each device owns holds the sum over every
     * device of every process, and the rest is unspecified. Within the process each part is summed in device order
     * onto its owner, ((g0 + g1) + g2) + …, the notebook's allreduce's order, so that the sums are its sums bit for
     * bit; then across the processes through the host.
     */
    public void reduceScatter(List<Buffer> pieces, int from) {
        int length = Collectives.checkLengths(pieces);
        try (OnEveryDevice r = OnEveryDevice.range(replicas, new StepPart.GradientReduceScatter())) {
            for (int d = 0; d < pieces.size(); d++) {
                int start = Math.max(from, chunks[d]), end = Math.min(from + length, chunks[d + 1]);
                if (start >= end) {
                    continue;
                }
                int at = start - from, n = end - start;
                Collectives.reduceInOrder(
                        pieces.stream().map(b -> b.slice(at, n)).toList(), d);
                if (group.size() > 1) {
                    acrossProcesses(pieces.get(d).slice(at, n), d, start);
                }
            }
        }
    }

    /** Device d's sum of {@code [start, start + sum.length())}, within its chunk, reduce-scattered over the processes. */
    private void acrossProcesses(Buffer sum, int d, int start) {
        Device device = sum.device();
        float[] host = device.download(sum);
        device.timeline()
                .ifPresent(
                        t -> t.acrossNodes(Collective.REDUCE_SCATTER, (long) host.length * Float.BYTES, group.size()));
        int[] parts = parts(d);
        int[] clipped = new int[parts.length];
        for (int i = 0; i < parts.length; i++) {
            clipped[i] = Math.clamp(chunks[d] + parts[i] - start, 0, host.length);
        }
        group.reduceScatter(host, clipped);
        int mine = clipped[group.rank()], n = clipped[group.rank() + 1] - mine;
        if (n > 0) {
            device.upload(host, mine, sum.slice(mine, n));
        }
    }

    /**
     * The flattened parameters' range {@code [from, from + into.length())} gathered into {@code into}, on device
     * {@code device} of this process, by peer copies from the chunks {@code owned} (one per device, in device order)
     * that the devices own; with several processes, from {@code acrossProcesses}, that range as
     * {@link #gatherAcrossProcesses} gave it. {@code before} names what waits for it, for traces.
     */
    public void gather(int device, Buffer into, int from, List<Buffer> owned, float[] acrossProcesses, String before) {
        Device target = into.device();
        try (Device.Range r = target.range(new StepPart.ParameterAllGather(before))) {
            if (acrossProcesses != null) {
                target.upload(acrossProcesses, 0, into);
                return;
            }
            for (int e = 0; e < owned.size(); e++) {
                int[] mine = ownedWithin(e, from, into.length());
                if (mine[1] == 0) {
                    continue;
                }
                Buffer src = owned.get(e).slice(mine[0] - offset(e), mine[1]);
                Buffer dst = into.slice(mine[0] - from, mine[1]);
                if (e == device) {
                    Ops.copy(target.kernels(), src, dst, mine[1]);
                } else {
                    target.copyFromPeer(src, dst);
                }
            }
        }
    }

    /**
     * The flattened parameters' range {@code [from, from + length)} gathered from every process into the host, once
     * for all of this process's devices: each process fills in what its devices own ({@code owned}, one chunk per
     * device), zeros elsewhere, and an all-reduce adds them (exactly). Every process calls it for the same ranges in
     * the same order. Null in one process, where devices gather from their peers alone.
     */
    public float[] gatherAcrossProcesses(int from, int length, List<Buffer> owned) {
        if (group.size() == 1) {
            return null;
        }
        float[] host = new float[length];
        for (int e = 0; e < owned.size(); e++) {
            int[] mine = ownedWithin(e, from, length);
            if (mine[1] > 0) {
                owned.get(e).device().download(owned.get(e).slice(mine[0] - offset(e), mine[1]), host, mine[0] - from);
            }
        }
        Device first = owned.getFirst().device();
        first.timeline()
                .ifPresent(t -> t.acrossNodes(Collective.ALL_GATHER, (long) length * Float.BYTES, group.size()));
        group.allReduce(host, 0, length);
        return host;
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
