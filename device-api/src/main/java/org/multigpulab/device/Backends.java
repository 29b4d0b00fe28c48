package org.multigpulab.device;

import java.util.Comparator;
import java.util.List;
import java.util.ServiceLoader;
import java.util.stream.Collectors;

/** Finds backends on the class path through {@link ServiceLoader}, by name. Stateless and thread-safe. */
public final class Backends {

    private Backends() {}

    /** Every backend on the class path, sorted by name. */
    public static List<Backend> all() {
        return ServiceLoader.load(Backend.class).stream()
                .map(ServiceLoader.Provider::get)
                .sorted(Comparator.comparing(Backend::name))
                .toList();
    }

    /**
     * The backend called {@code name}.
     *
     * @throws DeviceException naming the backends that exist when there is none of that name
     */
    public static Backend find(String name) {
        List<Backend> all = all();
        return all.stream()
                .filter(b -> b.name().equals(name))
                .findFirst()
                .orElseThrow(() -> new DeviceException("unknown backend '" + name + "'; choose one of "
                        + all.stream().map(Backend::name).collect(Collectors.joining(", "))
                        + " (./lab devices lists them)"));
    }

    /**
     * Opens devices of the backend called {@code name}, failing with the backend's own reason when it cannot
     * run here.
     */
    public static List<Device> open(String name, DeviceRequest request) {
        Backend backend = find(name);
        Availability availability = backend.availability();
        if (!availability.available()) {
            throw new DeviceException("backend '" + name + "' is not available here: " + availability.reason());
        }
        return backend.open(request);
    }
}
