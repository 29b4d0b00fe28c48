package org.multigpulab.lessons.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.multigpulab.core.data.FashionMnist;
import org.multigpulab.core.model.LeNet;
import org.multigpulab.core.model.Model;
import org.multigpulab.core.train.TrainConfig;
import org.multigpulab.core.train.TrainingListener;
import org.multigpulab.device.Device;
import org.multigpulab.lessons.bench.PeakFlops;
import org.multigpulab.lessons.errors.UserError;
import org.multigpulab.lessons.files.AtomicFile;
import org.multigpulab.lessons.run.TrainingRun;
import org.multigpulab.lessons.setup.DataSetup;
import org.multigpulab.lessons.setup.DeviceSetup;
import org.multigpulab.lessons.setup.PlotDir;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ./lab bench}: the epoch benchmark. The notebook's training configuration on our Java kernels
 * ({@code cpu}), on libtorch ({@code djl}) and on 1 and 8 logical GPUs over the Java kernels, one after the
 * other and again, so that the machine's moods fall on all alike; medians, ratios, effective GFLOP/s and the
 * share of the processor's peak.
 *
 * <p>The peak is measured again before each round and each epoch's share is taken against its own round's: on a
 * shared machine what a core gives moves by a quarter within minutes, and a peak taken once, at the start, would
 * set one moment against another.
 *
 * <p>The JVM's first epoch comes before the rounds and is reported on its own: while the JIT compiles the kernels
 * it is the slowest, and the setup that ran it would otherwise carry it in its median while the setups after it
 * (the same kernels on {@code sim}) ran on compiled code.
 */
@Command(
        name = "bench",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = "Time training epochs of the same configuration on cpu (our Java kernels), djl (libtorch),"
                + " and 1 vs 8 simulated GPUs over cpu, alternately; print medians, ratios, GFLOP/s, %% of peak.",
        footer = {
            "",
            "Examples:",
            "  ./lab bench --repeats 3            the full set, 3 epochs of each, about 4 minutes",
            "  ./lab bench --model resnet18       ResNet-18's training step on cpu and djl: epochs of 1,024 images"
        })
final class BenchCommand implements Callable<Integer> {

    /** The training images of an epoch of a model other than LeNet, by default: 4 steps of 256. */
    static final int SLOW_MODEL_IMAGES = 1024;

    @Option(
            names = "--repeats",
            paramLabel = "N",
            defaultValue = "3",
            description = "Epochs of each configuration, taken in turns. Default: ${DEFAULT-VALUE}.")
    int repeats;

    @CommandLine.Mixin
    DataOptions dataOptions;

    @Option(
            names = "--model",
            paramLabel = "NAME",
            defaultValue = "lenet",
            description = "The model trained: lenet (the notebook's, on all four setups) or another (resnet18: cpu and"
                    + " djl only, on the first 1,024 training images unless --train-samples says otherwise)."
                    + " Default: ${DEFAULT-VALUE}.")
    String modelName;

    @Option(
            names = "--json",
            paramLabel = "FILE",
            description = "Where the results go as JSON. Default: runs/<date>T<time>/bench.json.")
    Path json;

    /** One configuration: a name, the devices, how many. */
    record Setup(String name, DeviceSetup devices, int count) {}

    /** What one epoch of one configuration gave. */
    public record Epoch(String setup, int repeat, double wallSec, double flops, double testAcc, double peakGflops) {

        /** This epoch's FLOP/s over the peak measured just before its round. */
        double peakShare() {
            return flops / wallSec / (peakGflops * 1e9);
        }
    }

    /** A configuration's summary over its epochs. */
    public record Summary(
            String setup, double medianSec, double[] allSec, double gflops, double peakShare, double testAcc) {}

    /** The whole result, as written to JSON. */
    public record Result(
            String model,
            String machine,
            double peakGflops,
            double[] roundPeaksGflops,
            int trainSamples,
            int batchSize,
            List<Summary> setups,
            double cpuOverDjl,
            Double eightOverOne,
            Epoch firstEpoch,
            double cpuFirstOverLater,
            List<Epoch> epochs) {}

    /**
     * Made when the benchmark runs, not when the command line is built: a lab packed without djl still starts. The
     * notebook's LeNet on all four, another model on cpu and djl.
     */
    private static List<Setup> setups(boolean lenet) {
        List<Setup> both = List.of(
                new Setup("cpu", new DeviceSetup("cpu", null), 1), new Setup("djl", new DeviceSetup("djl", null), 1));
        if (!lenet) {
            return both;
        }
        return List.of(
                both.get(0),
                both.get(1),
                new Setup("sim x1", new DeviceSetup("sim", null), 1),
                new Setup("sim x8", new DeviceSetup("sim", null), 8));
    }

    @Override
    public Integer call() {
        UserError.requireOneOrMore("--repeats", repeats);
        Model model;
        try {
            model = Model.named(modelName);
        } catch (IllegalArgumentException e) {
            throw new UserError(e.getMessage(), e);
        }
        boolean lenet = model instanceof LeNet;
        List<Setup> setups = setups(lenet);
        Path out = resultsFile(json, PlotDir.choose(null));
        PrintStream print = System.out;
        // the test set only reports that each setup learned the same; a thousand images say it quickly
        FashionMnist.Splits splits = DataSetup.load(
                        dataOptions.data,
                        dataOptions.trainSamples != null || lenet ? dataOptions.trainSamples : SLOW_MODEL_IMAGES,
                        dataOptions.testSamples != null ? dataOptions.testSamples : lenet ? 1000 : 256)
                .splits();
        print.printf(
                Locale.ROOT,
                "%s: the JVM's first epoch, then %d round(s) of an epoch of %d images for each of %s; before each,"
                        + " the processor's FP32 peak (vector FMAs on %d cores)%n",
                model.name(),
                repeats,
                splits.train().count(),
                setups.stream().map(Setup::name).toList(),
                Runtime.getRuntime().availableProcessors());
        Epoch first = epoch(setups.getFirst(), model, 0, splits, PeakFlops.measure() / 1e9);
        print.printf(
                Locale.ROOT,
                "  the JVM's first epoch (%s, while the JIT compiles; not in the medians): %.1f s%n",
                first.setup(),
                first.wallSec());
        List<Epoch> epochs = new ArrayList<>();
        double[] peaks = new double[repeats];
        for (int r = 1; r <= repeats; r++) {
            peaks[r - 1] = PeakFlops.measure() / 1e9;
            print.printf(Locale.ROOT, "  round %d: peak %.0f GFLOP/s%n", r, peaks[r - 1]);
            for (Setup s : setups) {
                Epoch e = epoch(s, model, r, splits, peaks[r - 1]);
                epochs.add(e);
                print.printf(
                        Locale.ROOT, "  %-7s run %d: %5.1f s, test acc %.3f%n", s.name(), r, e.wallSec(), e.testAcc());
            }
        }
        List<Summary> summaries =
                setups.stream().map(s -> summary(s.name(), epochs)).toList();
        double cpuOverDjl = summaries.get(0).medianSec() / summaries.get(1).medianSec();
        // none for a model that runs on cpu and djl only (JSON has no NaN)
        Double eightOverOne =
                lenet ? summaries.get(3).medianSec() / summaries.get(2).medianSec() : null;
        print.printf(
                Locale.ROOT,
                "%n| setup | sec/epoch (median) | images/s | runs | GFLOP/s | of peak (median of the rounds') |"
                        + " test acc |%n|---|---|---|---|---|---|---|%n");
        for (Summary s : summaries) {
            print.printf(
                    Locale.ROOT,
                    "| %s | %.2f | %.1f | %s | %.1f | %.1f%% | %.3f |%n",
                    s.setup(),
                    s.medianSec(),
                    splits.train().count() / s.medianSec(),
                    Arrays.toString(Arrays.stream(s.allSec())
                            .map(v -> Math.round(v * 10) / 10.0)
                            .toArray()),
                    s.gflops(),
                    100 * s.peakShare(),
                    s.testAcc());
        }
        print.printf(Locale.ROOT, "%ncpu / djl = %.2f (sec/epoch)", cpuOverDjl);
        print.printf(
                Locale.ROOT, lenet ? "; 8 logical GPUs / 1 = %.2f (wall, same global batch)%n" : "%n", eightOverOne);
        double firstOverLater = first.wallSec() / summaries.getFirst().medianSec();
        print.printf(
                Locale.ROOT,
                "the JVM's first epoch (%s, while the JIT compiles) / %s's median = %.2f%n",
                first.setup(),
                first.setup(),
                firstOverLater);
        Result result = new Result(
                model.name(),
                System.getProperty("os.arch") + ", " + Runtime.getRuntime().availableProcessors() + " cores",
                median(peaks),
                peaks,
                splits.train().count(),
                TrainConfig.notebook().batchSize(),
                summaries,
                cpuOverDjl,
                eightOverOne,
                first,
                firstOverLater,
                epochs);
        AtomicFile.writeJson(out, result);
        print.println("results: " + out);
        return 0;
    }

    /**
     * Where the JSON goes: {@code --json}, whose folder must exist, or {@code bench.json} in {@code runFolder},
     * made here (the default's folder is ours to make), checked before the epochs start rather than after.
     */
    static Path resultsFile(Path json, Path runFolder) {
        if (json != null) {
            AtomicFile.checkWritable("--json", json);
            return json;
        }
        try {
            Files.createDirectories(runFolder);
        } catch (IOException e) {
            throw new UserError(
                    "cannot make the folder " + runFolder + " for the results: " + e.getMessage()
                            + "; give --json FILE in a folder that exists",
                    e);
        }
        Path out = runFolder.resolve("bench.json");
        AtomicFile.checkWritable("--json", out);
        return out;
    }

    /**
     * One epoch of the notebook's recipe (batch 256, lr 0.2) for {@code model} from the same start; FLOPs counted over
     * the training loop only.
     */
    private static Epoch epoch(Setup setup, Model model, int repeat, FashionMnist.Splits splits, double peakGflops) {
        List<Device> devices = setup.devices().open(setup.count());
        TrainConfig config = new TrainConfig(1, 256, 0.2f, 1, true, false);
        double[] flops = new double[2];
        return TrainingRun.on(devices, model, model.initialState(1), config)
                .listener(new TrainingListener() {
                    @Override
                    public void onStart(Start start) {
                        flops[0] = total(devices);
                    }

                    @Override
                    public void onBatch(BatchDone batch) {
                        if (batch.batch() == batch.batchesPerEpoch()) {
                            flops[1] = total(devices);
                        }
                    }
                })
                .train(
                        splits,
                        (trainer, r) -> new Epoch(
                                setup.name(),
                                repeat,
                                r.epochs().getFirst().wallSec(),
                                flops[1] - flops[0],
                                r.finalTestAcc(),
                                peakGflops));
    }

    private static double total(List<Device> devices) {
        return devices.stream().mapToDouble(d -> d.stats().flops()).sum();
    }

    static Summary summary(String setup, List<Epoch> epochs) {
        List<Epoch> mine = epochs.stream().filter(e -> e.setup().equals(setup)).toList();
        double[] secs = mine.stream().mapToDouble(Epoch::wallSec).toArray();
        double median = median(secs);
        double gflops = mine.getFirst().flops() / median / 1e9;
        double share = median(mine.stream().mapToDouble(Epoch::peakShare).toArray());
        return new Summary(setup, median, secs, gflops, share, mine.getLast().testAcc());
    }

    static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted.length % 2 == 1
                ? sorted[sorted.length / 2]
                : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
    }
}
