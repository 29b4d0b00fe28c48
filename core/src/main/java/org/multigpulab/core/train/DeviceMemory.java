package org.multigpulab.core.train;

import org.multigpulab.device.DeviceId;

/**
 * What one device of a training run holds between steps, in bytes: its parameters, gradients and optimizer state
 * (all of them, or its chunk under ZeRO) and the model's buffers; what its steps have held in activations, their
 * gradients and other temporaries ({@code activations}, its workspace); and the most its device had allocated at
 * once ({@code peak}, as the device counts it since it opened or since {@code Device.resetPeakMemory}), which adds
 * to those what ZeRO gathers for a pass and the collectives' staging.
 */
public record DeviceMemory(
        DeviceId device,
        long parameters,
        long gradients,
        long optimizerState,
        long buffers,
        long activations,
        long peak) {

    /** Parameters, gradients and optimizer state: what ZeRO's stages shard. */
    public long modelState() {
        return parameters + gradients + optimizerState;
    }

    /** All that stays allocated between steps. */
    public long betweenSteps() {
        return modelState() + buffers;
    }
}
