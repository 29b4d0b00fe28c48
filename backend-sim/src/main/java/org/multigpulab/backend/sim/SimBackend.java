package org.multigpulab.backend.sim;

import java.nio.file.Path;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.DoublePredicate;
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
 * says, one device stands in for several: each logical GPU has its own buffers and capacity, and its kernels
 * run on the physical device as a stream ({@link SimCluster} says when), while a cost model times them as the
 * GPUs of a profile (option {@code profile}, default {@code t4}) on an interconnect (option {@code topology},
 * default the profile's own) would take. Option {@code memory-mb} overrides the profile's capacity; {@code trace=on}
 * records every kernel and copy for a trace file; {@code nic} is the network card between nodes when the GPUs
 * are one node of several (default the DGX's for the profile); {@code compute=off} opens time-only GPUs, which
 * hold no data and compute nothing, while every call still advances their simulated time as it would;
 * {@code host-model=pytorch} charges the host the notebook's own program (Python, PyTorch, its DataLoader) as
 * {@link HostModel} measures it, where by default ({@code gpu}) the host only launches, on the processor
 * {@code host-cpu} names ({@link HostCpu}; default the one it was measured on). {@code profile=host}
 * times the logical GPUs as the physical device itself, measured ({@link HostCalibration}) and kept per
 * machine in option {@code calibration-cache}'s folder ({@code off}: measured every time, kept nowhere).
 */
public final class SimBackend implements Backend {

    public static final String NAME = "sim";
    static final String PHYSICAL = "physical";
    static final String MEMORY_MB = "memory-mb";
    static final String PROFILE = "profile";
    static final String TOPOLOGY = "topology";
    static final String TRACE = "trace";
    static final String NIC = "nic";
    static final String COMPUTE = "compute";
    static final String HOST_MODEL = "host-model";
    static final String CALIBRATION_CACHE = "calibration-cache";
    /** {@code one}: one host thread issues every GPU's work (the notebook's process); {@code per-gpu}: DDP's process per GPU. */
    static final String HOSTS = "hosts";
    /**
     * The most logical GPUs one process simulates: a 1,024 × 1,024 table of bytes between them is 8 MB, and
     * {@code ./lab simulate} simulates one node of a larger system.
     */
    static final int MAX_GPUS = 1024;

    private static final Set<String> OPTIONS = Set.of(
            PHYSICAL,
            MEMORY_MB,
            PROFILE,
            TOPOLOGY,
            TRACE,
            NIC,
            COMPUTE,
            HOST_MODEL,
            HostCpu.OPTION,
            DeviceProfile.KERNEL_US,
            DeviceProfile.FLOPS_SHARE,
            CALIBRATION_CACHE,
            HOSTS);
    private static final String DEFAULT_PROFILE = "t4";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "N logical GPUs over one physical device (--physical, default cpu), timed as real GPUs (--profile)";
    }

    @Override
    public Availability availability() {
        return Availability.yes("up to " + MAX_GPUS + " logical GPUs over a physical device");
    }

    @Override
    public List<DeviceInfo> devices() {
        DeviceProfile t4 = DeviceProfile.named(DEFAULT_PROFILE);
        return List.of(new DeviceInfo(
                new DeviceId(NAME, "N"),
                "logical GPUs over --physical (default cpu), timed as " + t4.displayName() + "s (--profile: "
                        + DeviceProfile.names() + ")",
                t4.memoryBytes()));
    }

    @Override
    public List<Device> open(DeviceRequest request) {
        Set<String> unknown = new HashSet<>(request.options().keySet());
        unknown.removeAll(OPTIONS);
        if (!unknown.isEmpty()) {
            throw new DeviceException("backend sim does not know the option(s) " + unknown + "; it takes " + OPTIONS);
        }
        if (request.count() > MAX_GPUS) {
            throw new DeviceException("backend sim simulates at most " + MAX_GPUS + " GPUs in one process, not "
                    + request.count() + "; choose --gpus " + MAX_GPUS + " or fewer (./lab simulate can spread more"
                    + " over --nodes)");
        }
        String physicalName = request.option(PHYSICAL, "cpu");
        if (physicalName.equals(NAME)) {
            throw new DeviceException("sim cannot run on sim; choose a physical backend such as cpu with --physical");
        }
        String profileName = request.option(PROFILE, DEFAULT_PROFILE);
        List<DeviceProfile> perDevice = withKernelFigures(
                perDevice(profileName, request.count()),
                request.option(DeviceProfile.FLOPS_SHARE, null),
                request.option(DeviceProfile.KERNEL_US, null));
        DeviceProfile gpu = profileName.equalsIgnoreCase(DeviceProfile.HOST) ? null : perDevice.getFirst();
        String topologyName = request.option(TOPOLOGY, gpu == null ? Topology.HOST : gpu.defaultTopology());
        Topology link = topologyName.equalsIgnoreCase(Topology.HOST) ? null : Topology.named(topologyName);
        String memory = request.option(MEMORY_MB, null);
        Long capacity = memory == null ? null : memoryBytes(memory);
        boolean trace = onOff(TRACE, request.option(TRACE, "off"));
        boolean compute = onOff(COMPUTE, request.option(COMPUTE, "on"));
        HostModel hostModel = hostModel(request.option(HOST_MODEL, "gpu"), request.option(HostCpu.OPTION, null));
        boolean hostPerGpu = hostPerGpu(request.option(HOSTS, "one"));
        if (!compute) {
            if (gpu == null || link == null) {
                throw new DeviceException("time-only GPUs (compute=off) cannot be timed as the host, which is measured"
                        + " by computing; choose a GPU profile (" + DeviceProfile.gpuNames() + ") and a topology ("
                        + Topology.linkNames() + ")");
            }
            List<DeviceProfile> profiles = capacity == null
                    ? perDevice
                    : perDevice.stream().map(p -> p.withMemory(capacity)).toList();
            return List.copyOf(
                    new SimCluster(null, profiles, link, nic(request, gpu), hostModel, hostPerGpu, trace, null)
                            .devices());
        }
        Device physical = Backends.open(physicalName, DeviceRequest.of(1)).getFirst();
        try {
            CalibrationCache.Calibrated host =
                    gpu == null || link == null ? calibrate(physical, request.option(CALIBRATION_CACHE, null)) : null;
            List<DeviceProfile> profiles = gpu != null
                    ? perDevice
                    : Collections.nCopies(
                            request.count(),
                            host.calibration().profile(physical.info().memoryBytes()));
            if (capacity != null) {
                profiles = profiles.stream().map(p -> p.withMemory(capacity)).toList();
            }
            Topology topology = link != null ? link : host.calibration().topology();
            return List.copyOf(new SimCluster(
                            physical,
                            profiles,
                            topology,
                            nic(request, profiles.getFirst()),
                            hostModel,
                            hostPerGpu,
                            trace,
                            host == null ? null : host.report(physical))
                    .devices());
        } catch (RuntimeException e) {
            physical.close();
            throw e;
        }
    }

    /**
     * The {@code host} calibration of {@code physical}: from the cache in {@code folder} (option
     * {@code calibration-cache}, default the lab's cache folder), or measured now and kept there; {@code off}
     * measures it every time and keeps nothing.
     */
    private static CalibrationCache.Calibrated calibrate(Device physical, String folder) {
        if ("off".equals(folder)) {
            return new CalibrationCache.Calibrated(HostCalibration.measure(physical), false, null);
        }
        Path path = folder == null ? CalibrationCache.defaultFolder() : Path.of(folder);
        return new CalibrationCache(path).calibrate(physical);
    }

    /**
     * The profile of each of {@code count} devices from option {@code profile}: one name for all ({@code t4}), or
     * one per device separated by commas ({@code t4,v100}), logical GPUs of different kinds in one run.
     */
    private static List<DeviceProfile> perDevice(String profile, int count) {
        if (profile.equalsIgnoreCase(DeviceProfile.HOST)) {
            return List.of();
        }
        List<String> names = List.of(profile.split(",", -1));
        if (names.size() == 1) {
            return Collections.nCopies(count, DeviceProfile.named(profile.strip()));
        }
        if (names.size() != count) {
            throw new DeviceException("sim option profile lists " + names.size() + " profiles (" + profile + ") for "
                    + count + " GPUs; give one profile for all, or one per GPU");
        }
        return names.stream().map(n -> DeviceProfile.named(n.strip())).toList();
    }

    /** The host model named {@code name}, on processor {@code cpu} (null: the one its figures were measured on). */
    private static HostModel hostModel(String name, String cpu) {
        HostModel model = switch (name) {
            case "gpu" -> null;
            case HostModel.PYTORCH -> HostModel.MEASURED;
            case HostModel.PYTORCH_DATA_PARALLEL -> HostModel.MEASURED.withDataParallel();
            default ->
                throw new DeviceException(
                        "sim option host-model must be gpu, pytorch or pytorch-dataparallel, not '" + name + "'");
        };
        if (cpu == null) {
            return model;
        }
        if (model == null) {
            throw new DeviceException("sim option " + HostCpu.OPTION + " is the processor of the notebook's host"
                    + " program; give it with host-model=" + HostModel.PYTORCH);
        }
        return model.on(HostCpu.named(cpu));
    }

    private static boolean hostPerGpu(String hosts) {
        return switch (hosts) {
            case "one" -> false;
            case "per-gpu" -> true;
            default -> throw new DeviceException("sim option hosts must be one or per-gpu, not '" + hosts + "'");
        };
    }

    private static Nic nic(DeviceRequest request, DeviceProfile gpu) {
        String name = request.option(NIC, null);
        return name == null ? Nic.defaultFor(gpu) : Nic.named(name);
    }

    /**
     * The GPUs' profiles with the share of the FP32 rate their kernels reach set to {@code share} and each kernel's
     * fixed device time to {@code micros} µs, where set: the figures a fit of the kernels' model moves.
     */
    private static List<DeviceProfile> withKernelFigures(List<DeviceProfile> profiles, String share, String micros) {
        if (share == null && micros == null) {
            return profiles;
        }
        double flopsShare = share == null
                ? Double.NaN
                : figure(DeviceProfile.FLOPS_SHARE, share, v -> v > 0 && v <= 1, "a share above 0 and at most 1");
        double kernelSec = micros == null
                ? Double.NaN
                : 1e-6 * figure(DeviceProfile.KERNEL_US, micros, v -> v >= 0, "µs, 0 or more");
        return profiles.stream()
                .map(p -> p.withKernelFigures(
                        share == null ? p.flopsShare() : flopsShare, micros == null ? p.kernelSec() : kernelSec))
                .toList();
    }

    /** Sim option {@code option}'s value {@code text}: a finite number that {@code valid} holds, as {@code what} says. */
    private static double figure(String option, String text, DoublePredicate valid, String what) {
        double value;
        try {
            value = Double.parseDouble(text);
        } catch (NumberFormatException e) {
            value = Double.NaN;
        }
        if (!Double.isFinite(value) || !valid.test(value)) {
            throw new DeviceException("sim option " + option + " is " + what + ", not '" + text + "'");
        }
        return value;
    }

    private static boolean onOff(String option, String value) {
        return switch (value) {
            case "on" -> true;
            case "off" -> false;
            default -> throw new DeviceException("sim option " + option + " must be on or off, not '" + value + "'");
        };
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
        throw new DeviceException(
                "sim option memory-mb must be a positive whole number of MiB, not '" + megabytes + "'");
    }
}
