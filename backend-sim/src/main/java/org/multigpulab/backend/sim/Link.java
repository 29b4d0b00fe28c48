package org.multigpulab.backend.sim;

/**
 * One direction of a connection in the alpha-beta model: moving {@code b} bytes takes
 * {@code latencySec + b / bytesPerSec}.
 */
record Link(double latencySec, double bytesPerSec) {

    double seconds(long bytes) {
        return latencySec + bytes / bytesPerSec;
    }
}
