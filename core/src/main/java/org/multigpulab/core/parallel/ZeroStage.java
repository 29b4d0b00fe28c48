package org.multigpulab.core.parallel;

/**
 * What the devices of a data-parallel run shard among themselves instead of each holding all of it, as the stages
 * of ZeRO (Rajbhandari et al., "ZeRO: Memory Optimizations Toward Training Trillion Parameter Models", SC 2020) and
 * PyTorch's FSDP name them. Each device owns one chunk of the flattened parameters and holds, of what a stage
 * shards, only its chunk. Every stage computes the same update as {@link #NONE}.
 */
public enum ZeroStage {
    /** Every device holds everything: the notebook's data parallelism, gradients all-reduced. */
    NONE,
    /** The optimizer's state sharded: each device steps its chunk, then the parameters are all-gathered. */
    OPTIMIZER,
    /** The gradients too: reduce-scattered, each device keeping only its chunk's summed gradient. */
    GRADIENTS,
    /** The parameters too: each layer's all-gathered before its forward and backward passes, freed after. */
    PARAMETERS;

    /** The stage's number, 0 to 3. */
    public int number() {
        return ordinal();
    }

    /** Stage {@code number}, 0 to 3 ({@code --zero}). */
    public static ZeroStage of(int number) {
        if (number < 0 || number > 3) {
            throw new IllegalArgumentException(
                    "ZeRO has stages 0 (nothing sharded) to 3 (parameters sharded), not " + number);
        }
        return values()[number];
    }

    /** Whether each device keeps only its chunk of the optimizer's state. */
    public boolean shardsOptimizerState() {
        return this != NONE;
    }

    /** Whether each device keeps only its chunk of the summed gradients. */
    public boolean shardsGradients() {
        return this == GRADIENTS || this == PARAMETERS;
    }

    /** Whether each device keeps only its chunk of the parameters between steps. */
    public boolean shardsParameters() {
        return this == PARAMETERS;
    }

    /**
     * The bytes of model state a device holds between steps for a model of {@code parameters} float32 values over
     * {@code devices} devices, with an optimizer that keeps {@code stateTensors} tensors per parameter (Adam 2):
     * with Adam, Ψ parameters and N devices, 16Ψ, 8Ψ + 8Ψ/N, 4Ψ + 12Ψ/N and 16Ψ/N for stages 0 to 3 (ZeRO's
     * Figure 1 in float32). A chunk is ⌈Ψ/N⌉ values at most.
     */
    public long modelStateBytes(long parameters, int devices, int stateTensors) {
        long chunk = (parameters + devices - 1) / devices;
        long params = shardsParameters() ? chunk : parameters;
        long grads = shardsGradients() ? chunk : parameters;
        long state = (long) stateTensors * (shardsOptimizerState() ? chunk : parameters);
        return Float.BYTES * (params + grads + state);
    }
}
