package org.multigpulab.core.parallel;

/**
 * Where a data-parallel step updates the parameters, a value chosen by configuration: on every replica from the
 * gradients summed into each ({@link #EACH}: the notebook, DDP), or on device 0 alone, whose parameters the others
 * then receive ({@link #FROM_DEVICE_0}: PyTorch's {@code nn.DataParallel}, d2l §12.6). The update is the same.
 */
public enum ReplicaUpdate {
    /** The gradients all-reduced, every replica taking the same optimizer step. */
    EACH,
    /**
     * {@code nn.DataParallel}'s step: the gradients reduce-added onto device 0 ({@code ReduceAddCoalesced}, the
     * backward of its replicate's broadcast), the optimizer step there, and device 0's parameters broadcast to the
     * other replicas ({@code replicate} at the next forward pass), both in chunks of {@link DeviceZeroCollectives#CHUNK_BYTES}.
     */
    FROM_DEVICE_0
}
