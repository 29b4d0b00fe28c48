package org.multigpulab.backend.djl;

import ai.djl.engine.Engine;
import ai.djl.util.cuda.CudaUtils;
import com.sun.management.OperatingSystemMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.Optional;
import org.multigpulab.device.DeviceInfo;

/**
 * DJL's PyTorch engine, started once per process the way this lab needs it: offline (libtorch comes in the
 * {@code pytorch-native-cpu} jar, or from {@code PYTORCH_LIBRARY_PATH}; nothing is downloaded at run time),
 * with the native libraries extracted to {@code ~/.cache/multigpu-lab/djl} unless {@code ENGINE_CACHE_DIR}
 * says otherwise.
 */
final class Libtorch {

    private static final String CACHE = "ENGINE_CACHE_DIR";
    private static Engine engine;
    private static String problem;

    private Libtorch() {}

    private static synchronized void start() {
        if (engine != null || problem != null) {
            return;
        }
        if (System.getProperty("ai.djl.offline") == null) {
            System.setProperty("ai.djl.offline", "true");
        }
        if (System.getenv(CACHE) == null && System.getProperty(CACHE) == null) {
            System.setProperty(
                    CACHE,
                    Path.of(System.getProperty("user.home"), ".cache", "multigpu-lab", "djl")
                            .toString());
        }
        try {
            engine = Engine.getEngine("PyTorch");
        } catch (RuntimeException | UnsatisfiedLinkError e) {
            problem = "DJL could not start libtorch: " + e.getMessage();
        }
    }

    /** Why libtorch cannot run here, if it cannot. */
    static Optional<String> problem() {
        start();
        return Optional.ofNullable(problem);
    }

    static Engine engine() {
        start();
        if (engine == null) {
            throw new IllegalStateException(problem);
        }
        return engine;
    }

    static DeviceInfo cpuInfo() {
        long memory = ((OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getTotalMemorySize();
        return new DeviceInfo(
                DjlBackend.cpuId(),
                "libtorch " + engine().getVersion() + " on the processor, "
                        + Runtime.getRuntime().availableProcessors() + " cores",
                memory);
    }

    static DeviceInfo gpuInfo(int i) {
        ai.djl.Device gpu = ai.djl.Device.gpu(i);
        return new DeviceInfo(
                DjlBackend.gpuId(i),
                "libtorch " + engine().getVersion() + " on CUDA GPU " + i + " (compute capability "
                        + CudaUtils.getComputeCapability(i) + ")",
                CudaUtils.getGpuMemory(gpu).getMax());
    }
}
