package org.multigpulab.backend.cpu;

import java.util.List;
import org.multigpulab.device.Availability;
import org.multigpulab.device.Backend;
import org.multigpulab.device.Device;
import org.multigpulab.device.DeviceException;
import org.multigpulab.device.DeviceId;
import org.multigpulab.device.DeviceInfo;
import org.multigpulab.device.DeviceRequest;

/**
 * Backend {@code cpu}: the processor as one physical device, {@code cpu:0}, whose kernels use every core.
 * Always available. It opens exactly one device; several GPUs on one processor are what {@code sim} is for.
 */
public final class CpuBackend implements Backend {

    public static final String NAME = "cpu";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "the processor as one device, pure-Java kernels on all cores";
    }

    @Override
    public Availability availability() {
        return Availability.yes(Runtime.getRuntime().availableProcessors() + " cores");
    }

    @Override
    public List<DeviceInfo> devices() {
        return List.of(new CpuDevice(DeviceId.of(NAME, 0)).info());
    }

    @Override
    public List<Device> open(DeviceRequest request) {
        if (request.count() != 1) {
            throw new DeviceException("backend cpu has one device (all cores), not " + request.count()
                    + "; for several GPUs on this machine use --backend sim --gpus " + request.count());
        }
        if (!request.options().isEmpty()) {
            throw new DeviceException("backend cpu takes no options, but was given "
                    + request.options().keySet());
        }
        return List.of(new CpuDevice(DeviceId.of(NAME, 0)));
    }
}
