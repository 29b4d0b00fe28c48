package org.multigpulab.lessons.validate;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.multigpulab.core.data.FashionMnist;
import org.multigpulab.core.model.Mlp;
import org.multigpulab.core.model.Model;
import org.multigpulab.core.train.TrainConfig;
import org.multigpulab.core.train.TrainingListener;
import org.multigpulab.device.Backends;
import org.multigpulab.device.Device;
import org.multigpulab.device.DeviceRequest;
import org.multigpulab.device.KernelTime;
import org.multigpulab.device.Timeline;
import org.multigpulab.lessons.run.TrainingRun;

/**
 * The cost model checked against the one clock it can be checked against everywhere: logical GPUs timed as the
 * physical device itself ({@code --profile host}), whose simulated epoch should be the epoch measured on the
 * wall. One logical GPU is comparable directly. Several logical GPUs share the one device (at most one per core at
 * a time) while the model has them side by side, so their simulated epoch is not the wall's; what is comparable
 * there is the work: the devices' simulated busy time added up against the measured time of their kernels added
 * up (a call that ran beside others counts its share of their wall time).
 */
public final class ModelValidation {

    /**
     * How a configuration is trained: the images per epoch for a model (null: as many as make each epoch last
     * about as long, {@link #imagesFor}), the test images, the epochs (the first is the JIT's, and dropped), and
     * whether the physical device is calibrated again for each configuration ({@code freshCalibration}) or read
     * from the lab's cache as a training run reads it.
     */
    public record Plan(Integer trainSamples, int testSamples, int epochs, boolean freshCalibration) {
        public Plan {
            if (epochs < 2) {
                throw new IllegalArgumentException("validation needs 2 epochs or more: the first one warms up");
            }
        }

        /**
         * The images per epoch for {@code model}: as asked, else 16,384 for a convolutional network and the whole
         * set for the MLP, whose epochs are a tenth as long (a measured epoch of a tenth of a second is mostly the
         * machine's noise).
         */
        int imagesFor(Model model, int available) {
            if (trainSamples != null) {
                return Math.min(trainSamples, available);
            }
            return model instanceof Mlp ? available : Math.min(CNN_IMAGES, available);
        }

        private static final int CNN_IMAGES = 16_384;
    }

    /**
     * One logical GPU: the wall seconds of the epochs after the first (median) and the simulated seconds of the
     * same epochs; per kernel name, the measured and the simulated seconds over those epochs, where the device
     * times its kernels ({@code kernelsTimed}; an OpenCL device runs them after its calls return, and its calls'
     * times are only their launches).
     */
    public record Single(
            String physical,
            String model,
            int batch,
            int images,
            double wallSec,
            double simSec,
            boolean kernelsTimed,
            Map<String, double[]> kernels,
            Timeline.Calibration calibration) {

        /** Simulated over measured, minus one: +0.10 says the model predicts 10 % too much time. */
        public double error() {
            return simSec / wallSec - 1;
        }
    }

    /**
     * Several logical GPUs on one device: the wall and simulated epochs (not comparable), and the work of all
     * devices over the epochs after the first: simulated and measured seconds of their kernels (comparable where
     * the device times its kernels).
     */
    public record Several(
            String physical,
            String model,
            int gpus,
            int batch,
            double wallSec,
            double simSec,
            boolean kernelsTimed,
            double simBusySec,
            double measuredBusySec) {

        public double busyError() {
            return simBusySec / measuredBusySec - 1;
        }
    }

    private final FashionMnist.Splits data;
    private final Plan plan;

    public ModelValidation(FashionMnist.Splits data, Plan plan) {
        this.data = data;
        this.plan = plan;
    }

    /** {@code model} at global batch {@code batch} on one logical GPU over {@code physical}, timed as the host. */
    public Single single(String physical, Model model, int batch) {
        Run run = train(physical, model, 1, batch);
        return new Single(
                physical,
                model.name(),
                batch,
                run.images,
                run.wallSec,
                run.simSec,
                run.kernelsTimed(),
                run.kernels,
                run.calibration());
    }

    /** {@code model} at global batch {@code batch} split over {@code gpus} logical GPUs on {@code physical}. */
    public Several several(String physical, Model model, int gpus, int batch) {
        Run run = train(physical, model, gpus, batch);
        return new Several(
                physical,
                model.name(),
                gpus,
                batch,
                run.wallSec,
                run.simSec,
                run.kernelsTimed(),
                run.kernels.values().stream().mapToDouble(t -> t[1]).sum(),
                run.kernels.values().stream().mapToDouble(t -> t[0]).sum());
    }

    /**
     * Per kernel name, the seconds of every call on {@code devices} so far: measured ([0]) and simulated ([1]).
     */
    private static Map<String, double[]> kernelSeconds(List<Device> devices) {
        Map<String, double[]> kernels = new LinkedHashMap<>();
        for (Device device : devices) {
            for (KernelTime k : device.stats().kernelTimes()) {
                kernels.computeIfAbsent(k.kernel(), n -> new double[2])[0] += k.nanos() / 1e9;
            }
        }
        for (Timeline.DeviceTime device :
                devices.getFirst().timeline().orElseThrow().devices()) {
            for (KernelTime k : device.kernels()) {
                kernels.computeIfAbsent(k.kernel(), n -> new double[2])[1] += k.nanos() / 1e9;
            }
        }
        return kernels;
    }

    /** {@code total} less {@code before}, name by name. */
    private static Map<String, double[]> since(Map<String, double[]> before, Map<String, double[]> total) {
        Map<String, double[]> later = new LinkedHashMap<>();
        total.forEach((name, t) -> {
            double[] b = before.getOrDefault(name, new double[2]);
            later.put(name, new double[] {t[0] - b[0], t[1] - b[1]});
        });
        return later;
    }

    /**
     * What a run left to read: its devices (still open, for their statistics), its epochs after the first, the
     * kernels' seconds over those epochs and their evaluations, and the wall seconds of those epochs altogether.
     */
    private record Run(
            Timeline.Calibration calibration,
            int images,
            double wallSec,
            double simSec,
            Map<String, double[]> kernels,
            double laterSec) {

        /**
         * Whether the kernel calls' measured times are the kernels' own: on a device that computes inside the call
         * they are most of the run; where calls only launch (OpenCL), a sliver of it.
         */
        boolean kernelsTimed() {
            return kernels.values().stream().mapToDouble(t -> t[0]).sum() > laterSec / 2;
        }
    }

    private Run train(String physical, Model model, int gpus, int batch) {
        Map<String, String> options = new HashMap<>(Map.of("physical", physical, "profile", "host"));
        if (plan.freshCalibration()) {
            options.put("calibration-cache", "off");
        }
        List<Device> devices = Backends.open("sim", new DeviceRequest(gpus, options));
        // the notebook's lr at its batch of 256, less for smaller batches: a timing run must not diverge
        float lr = 0.2f * Math.min(1f, batch / 256f);
        TrainConfig config = new TrainConfig(plan.epochs(), batch, lr, 1, true, false);
        FashionMnist.Splits data = new FashionMnist.Splits(
                this.data.train().first(plan.imagesFor(model, this.data.train().count())), this.data.test());
        // the first epoch's kernels run while the JIT compiles them: the comparison starts after it
        Map<String, double[]> afterFirst = new LinkedHashMap<>();
        long[] laterStart = new long[1];
        return TrainingRun.on(devices, model, model.initialState(1), config)
                .listener(new TrainingListener() {
                    @Override
                    public void onEpoch(EpochDone epoch) {
                        if (epoch.epoch() == 1) {
                            afterFirst.putAll(kernelSeconds(devices));
                            laterStart[0] = System.nanoTime();
                        }
                    }
                })
                .train(data, (trainer, result) -> {
                    double laterSec = (System.nanoTime() - laterStart[0]) / 1e9;
                    List<TrainingListener.EpochDone> later =
                            result.epochs().subList(1, result.epochs().size());
                    return new Run(
                            devices.getFirst().timeline().orElseThrow().calibration(),
                            data.train().count(),
                            median(later.stream()
                                    .mapToDouble(TrainingListener.EpochDone::wallSec)
                                    .toArray()),
                            median(later.stream()
                                    .mapToDouble(TrainingListener.EpochDone::simSec)
                                    .toArray()),
                            since(afterFirst, kernelSeconds(devices)),
                            laterSec);
                });
    }

    /** The kernels whose simulated time is furthest from their measured time, furthest first. */
    public static List<Map.Entry<String, double[]>> worstKernels(Single single, int count) {
        List<Map.Entry<String, double[]>> all = new ArrayList<>(single.kernels().entrySet());
        all.sort(Comparator.comparingDouble(
                        (Map.Entry<String, double[]> e) -> Math.abs(e.getValue()[1] - e.getValue()[0]))
                .reversed());
        return all.subList(0, Math.min(count, all.size()));
    }

    static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }
}
