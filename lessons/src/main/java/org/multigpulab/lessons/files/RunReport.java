package org.multigpulab.lessons.files;

import com.google.gson.FieldNamingPolicy;
import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.multigpulab.core.train.TrainResult;
import org.multigpulab.core.train.TrainingListener;
import org.multigpulab.device.Device;
import org.multigpulab.device.DeviceStats;
import org.multigpulab.device.KernelTime;
import org.multigpulab.device.Timeline;

/**
 * The JSON run report of {@code ./lab train --report FILE}; the README shows its fields, docs/ARCHITECTURE.md
 * ("Files") each schema version. Field names are the record components in snake case.
 */
public record RunReport(
        String schema,
        Config config,
        List<String> devices,
        List<Epoch> epochs,
        Final finalResult,
        List<DeviceSummary> deviceStats,
        Sim sim,
        Dist dist) {

    public static final String SCHEMA = "multigpu-lab/run-report/10";

    /** The options the run was started with; {@code model} is {@code --model}'s value ({@code lenet}, {@code mlp}). */
    public record Config(
            String backend,
            String physical,
            int gpus,
            String allreduce,
            Double bucketMb,
            int epochs,
            int batchSize,
            float lr,
            long seed,
            boolean shuffle,
            int trainSamples,
            int testSamples,
            String dataDir,
            String load,
            String model) {}

    /**
     * One epoch; {@code simSec} is null unless the devices are simulated. Since schema 10, {@code kernels}: the
     * kernels this process's devices ran in the epoch and its evaluation, added over the devices ({@link
     * EpochKernels}); null for an epoch that a resumed run had finished (for the epoch it resumed inside: the
     * batches it ran).
     */
    public record Epoch(
            int epoch,
            double trainLoss,
            double trainAcc,
            double testAcc,
            double wallSec,
            Double simSec,
            List<KernelSummary> kernels) {}

    /**
     * What the simulated GPUs would have taken, for {@code --backend sim} only: the modelled hardware, the
     * allreduce algorithm, mean simulated seconds per epoch, per device its time computing, communicating and
     * idle over the whole run (training and evaluation), its bytes and peak memory, and the bytes per link. Since
     * schema 7: {@code nodes} (a run of several processes is simulated as as many nodes, these devices one of them)
     * and {@code gpusPerNode}, and {@code secPerEpochWithPytorchHost}, the epoch with the notebook's host program
     * (null on the measured host profile). Since schema 8: {@code calibration}, on the {@code host} profile how each
     * kernel kind's cost was measured on the physical device (null on datasheet profiles), and per device the
     * simulated {@code kernels}, split as {@code device_stats} splits the measured ones. Since schema 9:
     * {@code calibration.tables}, per layer and element-wise kernel the seconds measured at each size, which its
     * calls are charged from.
     */
    public record Sim(
            String profile,
            String topology,
            String description,
            String algorithm,
            Double bucketMb,
            double secPerEpoch,
            List<SimDevice> devices,
            List<SimLink> links,
            int nodes,
            int gpusPerNode,
            Double secPerEpochWithPytorchHost,
            Timeline.Calibration calibration) {}

    public record SimDevice(
            String device,
            double computeSec,
            double commSec,
            double idleSec,
            long bytesSent,
            long bytesReceived,
            long peakBytes,
            List<KernelSummary> kernels) {}

    public record SimLink(String from, String to, long bytes) {}

    /**
     * Training across processes ({@code --dist}): how many, over what, and the wall time rank 0 spent summing
     * gradients across them (download, the collective, upload), in all and per call.
     */
    public record Dist(
            String kind,
            int worldSize,
            String description,
            double crossRankSec,
            long crossRankCalls,
            Double crossRankMsPerCall) {
        public Dist(String kind, int worldSize, String description, double crossRankSec, long crossRankCalls) {
            this(
                    kind,
                    worldSize,
                    description,
                    crossRankSec,
                    crossRankCalls,
                    crossRankCalls == 0 ? null : 1e3 * crossRankSec / crossRankCalls);
        }
    }

    /** The result, wall seconds per epoch, and seconds from the JVM's start to the first batch. */
    public record Final(double testAcc, double wallSecPerEpoch, double startupSec) {}

    /** What each device did over the whole run, from its {@link DeviceStats}. */
    public record DeviceSummary(
            String device,
            long kernelLaunches,
            long flops,
            long bytesUploaded,
            long bytesDownloaded,
            long bytesFromPeers,
            long bytesToPeers,
            long peakBytes,
            List<KernelSummary> kernels) {}

    /** Where a device's time went: one kernel at one size (FLOPs per launch), its launches and seconds. */
    public record KernelSummary(String kernel, long flopsPerLaunch, long launches, double sec) {}

    private static final Gson GSON = new GsonBuilder()
            .setFieldNamingStrategy(f -> f.getName().equals("finalResult")
                    ? "final"
                    : FieldNamingPolicy.LOWER_CASE_WITH_UNDERSCORES.translateName(f))
            .setPrettyPrinting()
            .serializeSpecialFloatingPointValues()
            .serializeNulls()
            .create();

    public static RunReport of(
            Config config,
            TrainResult result,
            EpochKernels epochKernels,
            double startupSec,
            List<Device> devices,
            Double secPerEpochWithPytorchHost,
            Dist dist) {
        List<Epoch> epochs = result.epochs().stream()
                .map(e -> epoch(e, epochKernels.of(e.epoch())))
                .toList();
        List<DeviceSummary> stats = devices.stream()
                .map(d -> {
                    DeviceStats s = d.stats();
                    return new DeviceSummary(
                            d.id().toString(),
                            s.kernelLaunches(),
                            s.flops(),
                            s.bytesUploaded(),
                            s.bytesDownloaded(),
                            s.bytesFromPeers(),
                            s.bytesToPeers(),
                            s.peakAllocatedBytes(),
                            kernels(s.kernelTimes()));
                })
                .toList();
        Sim sim = devices.getFirst()
                .timeline()
                .map(t -> new Sim(
                        t.profile(),
                        t.topology(),
                        t.description(),
                        config.allreduce(),
                        config.bucketMb(),
                        result.simulatedSecPerEpoch(),
                        t.devices().stream()
                                .map(d -> new SimDevice(
                                        d.device().toString(),
                                        d.computeSec(),
                                        d.commSec(),
                                        d.idleSec(),
                                        d.bytesSent(),
                                        d.bytesReceived(),
                                        d.peakBytes(),
                                        kernels(d.kernels())))
                                .toList(),
                        t.links().stream()
                                .map(l -> new SimLink(l.from().toString(), l.to().toString(), l.bytes()))
                                .toList(),
                        t.nodes(),
                        devices.size(),
                        secPerEpochWithPytorchHost,
                        t.calibration()))
                .orElse(null);
        return new RunReport(
                SCHEMA,
                config,
                result.devices().stream().map(Object::toString).toList(),
                epochs,
                new Final(result.finalTestAcc(), result.secPerEpoch(), startupSec),
                stats,
                sim,
                dist);
    }

    private static List<KernelSummary> kernels(List<KernelTime> times) {
        return times.stream()
                .map(k -> new KernelSummary(k.kernel(), k.flopsPerLaunch(), k.launches(), k.nanos() / 1e9))
                .toList();
    }

    private static Epoch epoch(TrainingListener.EpochDone e, List<KernelSummary> kernels) {
        return new Epoch(
                e.epoch(),
                e.trainLoss(),
                e.trainAcc(),
                e.testAcc(),
                e.wallSec(),
                Double.isNaN(e.simSec()) ? null : e.simSec(),
                kernels);
    }

    public String toJson() {
        return GSON.toJson(this);
    }

    public static RunReport fromJson(String json) {
        return GSON.fromJson(json, RunReport.class);
    }

    /** Writes the report to {@code file}, atomically. */
    public void write(Path file) {
        AtomicFile.write(file, out -> out.write(toJson().getBytes(StandardCharsets.UTF_8)));
    }
}
