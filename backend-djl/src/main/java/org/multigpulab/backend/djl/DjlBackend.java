package org.multigpulab.backend.djl;

import ai.djl.engine.Engine;
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
 * Backend {@code djl}: the kernels as libtorch operations through DJL's PyTorch engine, on CUDA GPUs
 * ({@code djl:cuda:0 …}) where there are some, else on the processor ({@code djl:cpu}). libtorch is the
 * outside referee of our own kernels: the same training gives the same parameters.
 */
public final class DjlBackend implements Backend {

    public static final String NAME = "djl";

    /** One gate for the process, as libtorch and its oneDNN switch are one. */
    private static final ConvolutionGate GATE = new ConvolutionGate();

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "libtorch through DJL's PyTorch engine: CUDA GPUs, else the processor";
    }

    @Override
    public Availability availability() {
        return Libtorch.problem()
                .map(Availability::no)
                .orElseGet(() -> Availability.yes(
                        "libtorch " + Libtorch.engine().getVersion() + ", " + gpuCount() + " CUDA GPU(s)"));
    }

    private static int gpuCount() {
        return Libtorch.engine().getGpuCount();
    }

    @Override
    public List<DeviceInfo> devices() {
        if (Libtorch.problem().isPresent()) {
            return List.of();
        }
        List<DeviceInfo> infos = new ArrayList<>();
        for (int i = 0; i < gpuCount(); i++) {
            infos.add(Libtorch.gpuInfo(i));
        }
        if (infos.isEmpty()) {
            infos.add(Libtorch.cpuInfo());
        }
        return infos;
    }

    @Override
    public List<Device> open(DeviceRequest request) {
        if (!request.options().isEmpty()) {
            throw new DeviceException(
                    "backend djl takes no options, not " + request.options().keySet());
        }
        Libtorch.problem().ifPresent(p -> {
            throw new DeviceException("backend djl is not available: " + p);
        });
        int gpus = gpuCount();
        int count = request.count();
        if (gpus == 0) {
            Allocator.warnIfGlibc();
        }
        if (gpus == 0 && count > 1) {
            throw new DeviceException("djl found no CUDA GPU, only the processor (djl:cpu); for " + count
                    + " devices use --backend sim --physical djl --gpus " + count);
        }
        if (gpus > 0 && count > gpus) {
            throw new DeviceException("djl found " + gpus + " CUDA GPU(s), not " + count + "; use --gpus " + gpus
                    + " or less, or --backend sim --physical djl --gpus " + count);
        }
        List<Device> devices = new ArrayList<>();
        if (gpus == 0) {
            devices.add(new DjlDevice(Libtorch.cpuInfo(), ai.djl.Device.cpu()));
        }
        for (int i = 0; i < Math.min(count, gpus); i++) {
            devices.add(new DjlDevice(Libtorch.gpuInfo(i), ai.djl.Device.gpu(i)));
        }
        try {
            devices.forEach(DjlBackend::checkConvolutions);
        } catch (RuntimeException e) {
            devices.forEach(Device::close);
            throw e;
        }
        return List.copyOf(devices);
    }

    /**
     * The start-up self-test: a device whose convolutions are wrong does not train. On the processor, a
     * failure with oneDNN is retried with libtorch's own convolutions (half as fast here, but right).
     */
    private static void checkConvolutions(Device device) {
        ConvolutionLibrary library = device.id().equals(cpuId()) ? OneDnn.LIBTORCH : ConvolutionLibrary.NONE;
        GATE.admit(device, library).ifPresent(note -> System.err.println("note: " + note));
    }

    static DeviceId cpuId() {
        return new DeviceId(NAME, "cpu");
    }

    static DeviceId gpuId(int i) {
        return new DeviceId(NAME, "cuda:" + i);
    }

    static Engine engine() {
        return Libtorch.engine();
    }
}
