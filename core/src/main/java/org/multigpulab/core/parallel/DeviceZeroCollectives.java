package org.multigpulab.core.parallel;

import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;
import org.multigpulab.device.Buffer;
import org.multigpulab.device.CollectiveCostModel.Collective;
import org.multigpulab.device.StepPart;

/**
 * {@code nn.DataParallel}'s collectives around device 0 ({@link ReplicaUpdate#FROM_DEVICE_0}): every replica's
 * gradients reduce-added onto device 0, and device 0's parameters broadcast to the others, both over the flat
 * tensors in chunks of {@link #CHUNK_BYTES}, as {@code torch.cuda.comm}'s {@code reduce_add_coalesced} and
 * {@code broadcast_coalesced} take them, each chunk one NCCL call ({@code ncclReduce}, {@code ncclBroadcast}: PyTorch
 * uses NCCL for both where it is there), which a timeline with a model of NCCL times as that model says. They
 * flatten each chunk into one tensor and back with copy kernels; the
 * replicas' flat layout here needs none, so those copies (about 0.3 ms a step for ResNet-18 on a V100) are not
 * made or charged. One process only. Not thread-safe.
 */
public final class DeviceZeroCollectives {

    /** {@code buffer_size=10485760}, the default of both in PyTorch's torch/cuda/comm.py. */
    public static final long CHUNK_BYTES = 10L << 20;

    private final List<Replica> replicas;

    public DeviceZeroCollectives(List<Replica> replicas) {
        this.replicas = List.copyOf(replicas);
    }

    /** Device 0's gradients become the sum of every replica's; the others keep theirs. */
    public void reduceGradients() {
        inChunks(new StepPart.GradientReduce(), Replica::gradients, Collective.REDUCE, b -> Collectives.reduce(b, 0));
    }

    /** Every replica's parameters become device 0's. */
    public void broadcastParameters() {
        inChunks(
                new StepPart.ParameterBroadcast(),
                Replica::values,
                Collective.BROADCAST,
                b -> Collectives.broadcast(b, 0));
    }

    private void inChunks(
            StepPart part, Function<Replica, Buffer> flat, Collective op, Consumer<List<Buffer>> collective) {
        if (replicas.size() == 1) {
            return;
        }
        int length = replicas.getFirst().length();
        int chunk = (int) (CHUNK_BYTES / Float.BYTES);
        try (OnEveryDevice r = OnEveryDevice.range(replicas, part)) {
            for (int offset = 0; offset < length; offset += chunk) {
                int from = offset, n = Math.min(chunk, length - offset);
                List<Buffer> chunks = replicas.stream()
                        .map(replica -> flat.apply(replica).slice(from, n))
                        .toList();
                Collectives.asOneNcclCall(op, chunks, () -> collective.accept(chunks));
            }
        }
    }
}
