package org.multigpulab.core.model;

/**
 * What a forward pass is for, as PyTorch's {@code model.train()} and {@code model.eval()} say: training (BatchNorm
 * normalises with the batch's statistics and updates its running ones) or evaluation (it uses the running ones).
 */
public enum Mode {
    TRAIN,
    EVAL
}
