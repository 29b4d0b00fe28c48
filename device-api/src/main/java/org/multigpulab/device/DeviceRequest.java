package org.multigpulab.device;

import java.util.Map;

/**
 * What a caller asks a backend to open: how many devices, and backend-specific options by name
 * (for {@code sim}: {@code physical}, the backend whose device the logical GPUs run on). Immutable.
 *
 * <p>A backend rejects an option it does not know with a {@link DeviceException}, so a typo is never
 * silently ignored.
 */
public record DeviceRequest(int count, Map<String, String> options) {

    public DeviceRequest {
        if (count <= 0) {
            throw new DeviceException("the number of devices must be 1 or more, not " + count);
        }
        options = Map.copyOf(options);
    }

    public static DeviceRequest of(int count) {
        return new DeviceRequest(count, Map.of());
    }

    public String option(String name, String fallback) {
        return options.getOrDefault(name, fallback);
    }
}
