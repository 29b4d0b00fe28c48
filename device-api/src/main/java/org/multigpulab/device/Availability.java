package org.multigpulab.device;

/**
 * Whether a backend can open devices on this machine, and if not, why not in words a student can act on.
 * Immutable.
 */
public record Availability(boolean available, String reason) {

    public static Availability yes(String detail) {
        return new Availability(true, detail);
    }

    public static Availability no(String reason) {
        return new Availability(false, reason);
    }
}
