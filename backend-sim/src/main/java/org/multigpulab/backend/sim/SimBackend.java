package org.multigpulab.backend.sim;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.multigpulab.device.Availability;
import org.multigpulab.device.Backend;
import org.multigpulab.device.Backends;
import org.multigpulab.device.Device;
import org.multigpulab.device.DeviceException;
import org.multigpulab.device.DeviceId;
import org.multigpulab.device.DeviceInfo;
import org.multigpulab.device.DeviceRequest;

/**
 * Backend {@code sim}: N logical GPUs {@code sim:0 … sim:N-1} over one physical device of any other backend,
 * found by name at run time (option {@code physical}, default {@code cpu}). As the notebook's Colab note
 * says, one device stands in for several: each logical GPU has its own buffers and capacity (option
 * {@code memory-mb}, default 16384, a T4's), and its kernels run one after another on the physical device.
 */
public final class SimBackend implements Backend {

    public static final String NAME = "sim";
    static final String PHYSICAL = "physical";
    static final String MEMORY_MB = "memory-mb";
    private static final Set<String> OPTIONS = Set.of(PHYSICAL, MEMORY_MB);
    private static final long DEFAULT_MEMORY_MB = 16_384;

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "N logical GPUs over one physical device (--physical, default cpu)";
    }

    @Override
    public Availability availability() {
        return Availability.yes("any number of logical GPUs over a physical device");
    }

    @Override
    public List<DeviceInfo> devices() {
        return List.of(new DeviceInfo(new DeviceId(NAME, "N"), "logical GPUs over --physical (default cpu)",
                DEFAULT_MEMORY_MB << 20));
    }

    @Override
    public List<Device> open(DeviceRequest request) {
        Set<String> unknown = new HashSet<>(request.options().keySet());
        unknown.removeAll(OPTIONS);
        if (!unknown.isEmpty()) {
            throw new DeviceException("backend sim does not know the option(s) " + unknown + "; it takes " + OPTIONS);
        }
        String physicalName = request.option(PHYSICAL, "cpu");
        if (physicalName.equals(NAME)) {
            throw new DeviceException("sim cannot run on sim; choose a physical backend such as cpu with --physical");
        }
        long capacity = memoryBytes(request.option(MEMORY_MB, Long.toString(DEFAULT_MEMORY_MB)));
        Device physical = Backends.open(physicalName, DeviceRequest.of(1)).getFirst();
        return List.copyOf(new SimCluster(physical, request.count(), capacity).devices());
    }

    private static long memoryBytes(String megabytes) {
        try {
            long mb = Long.parseLong(megabytes);
            if (mb > 0) {
                return mb << 20;
            }
        } catch (NumberFormatException e) {
            // fall through to the message below
        }
        throw new DeviceException("sim option memory-mb must be a positive whole number of MiB, not '" + megabytes + "'");
    }
}
