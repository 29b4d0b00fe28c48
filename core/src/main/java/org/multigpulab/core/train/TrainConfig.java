package org.multigpulab.core.train;

/**
 * How to train: the seed's {@code num_epochs}, {@code batch_size} and {@code lr}, the seed of the shuffling
 * generator, whether to shuffle at all, and whether to check after every step that all replicas hold the same
 * parameters (a debug check, on in tests). Immutable; the constructor rejects values that cannot train.
 */
public record TrainConfig(int epochs, int batchSize, float lr, long seed, boolean shuffle, boolean checkReplicas) {

    public TrainConfig {
        if (epochs <= 0) {
            throw new IllegalArgumentException("epochs must be 1 or more, not " + epochs);
        }
        if (batchSize <= 0) {
            throw new IllegalArgumentException("batch size must be 1 or more, not " + batchSize);
        }
        if (!Float.isFinite(lr) || lr <= 0) {
            throw new IllegalArgumentException("learning rate must be a positive finite number, not " + lr);
        }
    }

    /** The seed's {@code train(num_gpus, batch_size=256, lr=0.2)} with 5 epochs. */
    public static TrainConfig seedDefaults() {
        return new TrainConfig(5, 256, 0.2f, 1, true, false);
    }
}
