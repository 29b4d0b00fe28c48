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
 * and for {@code sim} the physical backend underneath ({@code --physical}). Immutable.
 */
public record DeviceSetup(String backend, String physical) {

    public DeviceSetup {
        if (physical != null && !backend.equals("sim")) {
            throw new UserError("--physical chooses the device under --backend sim; leave it out with --backend " + backend);
        }
        Backends.find(backend);   // an unknown backend fails here, before any work
    }

    /** The number of devices when {@code --gpus} is not given: 2 logical GPUs on sim, else 1. */
    public int defaultCount() {
        return backend.equals("sim") ? 2 : 1;
    }

    public List<Device> open(int count) {
        if (count <= 0) {
            throw new UserError("--gpus must be 1 or more, not " + count);
        }
        Map<String, String> options = new HashMap<>();
        if (physical != null) {
            options.put("physical", physical);
        }
        return Backends.open(backend, new DeviceRequest(count, options));
    }
}
