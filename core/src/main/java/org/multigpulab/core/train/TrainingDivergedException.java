package org.multigpulab.core.train;

/** A loss or gradient became NaN or infinite; the message names epoch, batch and device, and what to try. */
public final class TrainingDivergedException extends RuntimeException {

    public TrainingDivergedException(String message) {
        super(message);
    }
}
