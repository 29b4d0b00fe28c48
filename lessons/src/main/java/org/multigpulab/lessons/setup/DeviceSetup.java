package org.multigpulab.lessons.setup;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.multigpulab.device.Backends;
import org.multigpulab.device.Device;
import org.multigpulab.device.DeviceRequest;
import org.multigpulab.lessons.errors.UserError;

/**
 * The devices the command line asks for: a backend by name ({@code --backend}), how many ({@code --gpus}),
 * and for {@code sim} the physical backend underneath ({@code --physical}), the GPUs and interconnect its cost
 * model times ({@code --profile}, {@code --topology}) and whether it records a trace. Immutable.
 */
public record DeviceSetup(String backend, String physical, String profile, String topology, boolean trace) {

    public DeviceSetup {
        if (!backend.equals("sim")) {
            // the parameter, not the field: a compact constructor assigns the fields only when it ends
            simOnly(backend, "--physical", physical, "chooses the device under");
            simOnly(backend, "--profile", profile, "chooses the GPUs timed by");
            simOnly(backend, "--topology", topology, "chooses the interconnect timed by");
            if (trace) {
                throw new UserError("--trace records simulated time, which only --backend sim has; leave it out with"
                        + " --backend " + backend);
            }
        }
        Backends.find(backend); // an unknown backend fails here, before any work
    }

    public DeviceSetup(String backend, String physical) {
        this(backend, physical, null, null, false);
    }

    private static void simOnly(String backend, String option, String value, String what) {
        if (value != null) {
            throw new UserError(option + " " + what + " --backend sim; leave it out with --backend " + backend);
        }
    }

    /** The same devices, with a trace of their simulated time recorded. */
    public DeviceSetup traced() {
        return new DeviceSetup(backend, physical, profile, topology, true);
    }

    /** The same devices timed as {@code profile} GPUs on their own interconnect (sim only). */
    public DeviceSetup withProfile(String newProfile) {
        return new DeviceSetup(backend, physical, newProfile, null, trace);
    }

    /** The number of devices when {@code --gpus} is not given: 2 logical GPUs on sim, else 1. */
    public int defaultCount() {
        return backend.equals("sim") ? 2 : 1;
    }

    /**
     * Checks, before a lesson trains anything, that {@code count} devices can be opened at once: on sim, up to its
     * limit, which opening checks; on another backend, as many as it lists (where it lists none, opening says why).
     */
    public void checkOffers(int count) {
        if (backend.equals("sim")) {
            return;
        }
        int offered = Backends.find(backend).devices().size();
        if (offered > 0 && offered < count) {
            throw new UserError("backend " + backend + " has " + offered + (offered == 1 ? " device" : " devices")
                    + " here, and this needs " + count + "; for " + count + " GPUs on this machine use --backend sim"
                    + " --physical " + backend);
        }
    }

    public List<Device> open(int count) {
        UserError.requireOneOrMore("--gpus", count);
        Map<String, String> options = new HashMap<>();
        put(options, "physical", physical);
        put(options, "profile", profile);
        put(options, "topology", topology);
        if (trace) {
            options.put("trace", "on");
        }
        return Backends.open(backend, new DeviceRequest(count, options));
    }

    private static void put(Map<String, String> options, String name, String value) {
        if (value != null) {
            options.put(name, value);
        }
    }
}
