package org.multigpulab.device;

import java.util.Objects;

/**
 * The name of one device: a backend name and a backend-local part, printed and parsed as
 * {@code backend:local} ({@code sim:1}, {@code cpu:0}, {@code djl:cuda:0}, {@code opencl:0}).
 *
 * <p>{@code DeviceId.parse(id.toString())} equals {@code id}, so a flag, a log line and a plot legend
 * all say the same thing. Immutable.
 */
public record DeviceId(String backend, String local) {

    public DeviceId {
        Objects.requireNonNull(backend, "backend");
        Objects.requireNonNull(local, "local");
        if (!backend.matches("[a-z][a-z0-9_-]*")) {
            throw new IllegalArgumentException(
                    "a backend name is lower-case letters, digits, '-' or '_', not '" + backend + "'");
        }
        if (local.isEmpty() || local.chars().anyMatch(Character::isWhitespace)) {
            throw new IllegalArgumentException(
                    "a device id needs a non-blank part after the backend, not '" + local + "'");
        }
    }

    /** The id {@code backend:index}, the common form for numbered devices. */
    public static DeviceId of(String backend, int index) {
        if (index < 0) {
            throw new IllegalArgumentException("a device index is 0 or more, not " + index);
        }
        return new DeviceId(backend, Integer.toString(index));
    }

    /**
     * Parses {@code backend:local}; the backend is everything before the first colon.
     *
     * @throws IllegalArgumentException naming the text and the expected form
     */
    public static DeviceId parse(String text) {
        int colon = text.indexOf(':');
        if (colon <= 0 || colon == text.length() - 1) {
            throw new IllegalArgumentException(
                    "'" + text + "' is not a device id; write backend:device, for example sim:1, cpu:0 or djl:cuda:0");
        }
        return new DeviceId(text.substring(0, colon), text.substring(colon + 1));
    }

    /** The trailing number of the local part ({@code 0} of {@code djl:cuda:0}), or -1 when there is none. */
    public int index() {
        int i = local.length();
        while (i > 0 && Character.isDigit(local.charAt(i - 1))) {
            i--;
        }
        return i == local.length() ? -1 : Integer.parseInt(local.substring(i));
    }

    @Override
    public String toString() {
        return backend + ":" + local;
    }
}
