package org.multigpulab.backend.opencl;

import java.util.ArrayList;
import java.util.List;
import org.multigpulab.device.Availability;
import org.multigpulab.device.Backend;
import org.multigpulab.device.Device;
import org.multigpulab.device.DeviceException;
import org.multigpulab.device.DeviceId;
import org.multigpulab.device.DeviceInfo;
import org.multigpulab.device.DeviceRequest;

/**
 * Backend {@code opencl}: our own kernels, in OpenCL C, on every OpenCL device of this machine, GPUs first
 * ({@code opencl:0 … opencl:N-1}). It runs on NVIDIA, AMD and Intel GPUs through their drivers and on any
 * processor through PoCL. Unavailable, with the reason, when there is no OpenCL library or no device.
 */
public final class OpenClBackend implements Backend {

    public static final String NAME = "opencl";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "our own OpenCL C kernels, through the JDK's foreign-function API";
    }

    @Override
    public Availability availability() {
        if (OpenCl.UNAVAILABLE.isPresent()) {
            return Availability.no(OpenCl.UNAVAILABLE.get());
        }
        List<Discovery.Found> found = Discovery.devices();
        if (found.isEmpty()) {
            return Availability.no("the OpenCL library found no platform with a device; install a driver"
                    + " (on Debian, pocl-opencl-icd runs OpenCL on the processor)");
        }
        return Availability.yes(found.size() + " device(s) on "
                + found.stream().map(Discovery.Found::platformName).distinct().toList());
    }

    @Override
    public List<DeviceInfo> devices() {
        if (OpenCl.UNAVAILABLE.isPresent()) {
            return List.of();
        }
        List<DeviceInfo> infos = new ArrayList<>();
        List<Discovery.Found> found = Discovery.devices();
        for (int i = 0; i < found.size(); i++) {
            infos.add(OpenClDevice.info(DeviceId.of(NAME, i), found.get(i)));
        }
        return infos;
    }

    @Override
    public List<Device> open(DeviceRequest request) {
        if (!request.options().isEmpty()) {
            throw new DeviceException("backend opencl takes no options, but was given "
                    + request.options().keySet());
        }
        Availability availability = availability();
        if (!availability.available()) {
            throw new DeviceException("backend opencl is not available here: " + availability.reason());
        }
        List<Discovery.Found> found = Discovery.devices();
        if (request.count() > found.size()) {
            throw new DeviceException("asked for " + request.count() + " OpenCL devices but found " + found.size()
                    + " (" + found.stream().map(Discovery.Found::name).toList() + "); use --gpus " + found.size()
                    + ", or --backend sim --physical opencl --gpus " + request.count()
                    + " for logical GPUs on one of them");
        }
        List<Device> devices = new ArrayList<>();
        for (int i = 0; i < request.count(); i++) {
            devices.add(new OpenClDevice(DeviceId.of(NAME, i), found.get(i)));
        }
        return List.copyOf(devices);
    }
}
