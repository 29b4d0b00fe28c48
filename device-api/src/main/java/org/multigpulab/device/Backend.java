package org.multigpulab.device;

import java.util.List;

/**
 * A family of devices ({@code cpu}, {@code sim}, {@code djl}, {@code opencl}), found with
 * {@link java.util.ServiceLoader} (see {@link Backends}).
 *
 * <p>Implementations have a public no-argument constructor and do no work in it: loading a backend must stay
 * cheap and must not fail on a machine where it cannot run; {@link #availability()} says so instead.
 */
public interface Backend {

    /** The name used in device ids and on the command line. */
    String name();

    /** One line for people: what the devices of this backend are. */
    String description();

    /** Whether devices can be opened here, and why not when they cannot. */
    Availability availability();

    /** The devices this backend could open now; empty when it is unavailable. */
    List<DeviceInfo> devices();

    /**
     * Opens {@code request.count()} devices, numbered from 0.
     *
     * @throws DeviceException when the backend is unavailable, fewer devices exist, or an option is unknown
     */
    List<Device> open(DeviceRequest request);
}
