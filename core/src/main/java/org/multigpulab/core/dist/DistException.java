package org.multigpulab.core.dist;

/** Training across processes cannot start or go on (no MPI library, a failed collective); the message says why. */
public final class DistException extends RuntimeException {

    public DistException(String message) {
        super(message);
    }
}
