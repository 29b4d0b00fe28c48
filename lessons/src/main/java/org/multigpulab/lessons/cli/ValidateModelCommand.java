package org.multigpulab.lessons.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.DoubleSummaryStatistics;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import org.multigpulab.core.data.FashionMnist;
import org.multigpulab.core.model.Model;
import org.multigpulab.device.Backends;
import org.multigpulab.device.Timeline;
import org.multigpulab.lessons.errors.UserError;
import org.multigpulab.lessons.files.AtomicFile;
import org.multigpulab.lessons.lesson.Claim;
import org.multigpulab.lessons.setup.DataSetup;
import org.multigpulab.lessons.setup.PlotDir;
import org.multigpulab.lessons.validate.ModelValidation;
import org.multigpulab.lessons.validate.ValidationChart;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ./lab validate-model}: the {@code host} profile's simulated epoch against the wall clock, for each
 * physical device, model and batch size; a table, the kernels where the model errs most, a verdict, a chart.
 */
@Command(
        name = "validate-model",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Check the cost model against this machine's clock: train on 1 logical GPU timed as the physical device"
                    + " itself (--profile host) at every batch size, for each model and physical device, and compare"
                    + " the simulated epoch with the measured one; then 2 and 4 logical GPUs, by their busy time.",
        },
        footer = {
            "",
            "Examples:",
            "  ./lab validate-model                                   cpu and opencl, lenet and mlp, batch 32 to 1024",
            "  ./lab validate-model --physical cpu --model lenet --batch-sizes 64,512"
        })
final class ValidateModelCommand implements Callable<Integer> {

    @Option(
            names = "--physical",
            paramLabel = "LIST",
            split = ",",
            defaultValue = "cpu,opencl",
            description = "Physical devices to validate on; one that cannot run here is skipped with its reason."
                    + " Default: ${DEFAULT-VALUE}.")
    List<String> physical;

    @Option(
            names = "--model",
            paramLabel = "LIST",
            split = ",",
            defaultValue = "lenet,mlp",
            description = "Models: lenet, mlp. Default: ${DEFAULT-VALUE}.")
    List<String> models;

    @Option(
            names = "--batch-sizes",
            paramLabel = "LIST",
            split = ",",
            defaultValue = "32,64,128,256,512,1024",
            description = "Batch sizes on one logical GPU. Default: ${DEFAULT-VALUE}.")
    List<Integer> batchSizes;

    @Option(
            names = "--gpus",
            paramLabel = "LIST",
            split = ",",
            defaultValue = "2,4",
            description = "Logical GPU counts compared by busy time (the first model, batch 256); 1 skips them."
                    + " Default: ${DEFAULT-VALUE}.")
    List<Integer> gpus;

    @Option(
            names = "--epochs",
            paramLabel = "N",
            defaultValue = "5",
            description = "Epochs per configuration; the first warms up the JIT and is dropped, the median of the"
                    + " others is compared. Default: ${DEFAULT-VALUE}.")
    int epochs;

    @Option(
            names = "--tolerance",
            paramLabel = "REL",
            defaultValue = "0.15",
            description = "The error band the verdict and the chart show. Default: ${DEFAULT-VALUE}.")
    double tolerance;

    @Option(
            names = "--calibration",
            paramLabel = "WHEN",
            defaultValue = "fresh",
            description = "fresh: measure the physical device again before every configuration, so that the"
                    + " machine's own drift between a calibration and a run (a quarter in minutes on a shared"
                    + " machine) is not counted as the model's error; cached: read it from the lab's cache, as"
                    + " ./lab train does. Default: ${DEFAULT-VALUE}.")
    Calibration calibration;

    /** When the physical device is measured: before every configuration, or once and kept in the cache. */
    enum Calibration {
        fresh,
        cached
    }

    @Option(
            names = "--repeats",
            paramLabel = "N",
            defaultValue = "1",
            description = "Train each configuration N times, each after its own calibration, and show the one whose"
                    + " error is the median: on a shared machine, whose speed moves by a tenth or more from one"
                    + " minute to the next, 3 gives a steadier table. Default: ${DEFAULT-VALUE}.")
    int repeats;

    @CommandLine.Mixin
    DataOptions dataOptions;

    @Option(
            names = "--plot-dir",
            paramLabel = "DIR",
            description = "Where the chart and the JSON results go. Default: runs/<date>T<time>/.")
    Path plotDir;

    private static final int DEFAULT_TEST_SAMPLES = 1_000;
    private static final int SEVERAL_BATCH = 256;

    /** Everything measured, as written to JSON. */
    record Result(
            Integer trainSamples,
            int epochs,
            double tolerance,
            List<ModelValidation.Single> single,
            List<ModelValidation.Several> several,
            double largestError) {}

    @Override
    public Integer call() {
        checkOptions();
        List<Model> chosen = models.stream().map(Model::named).toList();
        List<String> usable = usablePhysical();
        Path dir = PlotDir.choose(plotDir);
        Path json = dir.resolve("validate-model.json");
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UserError("--plot-dir " + dir + " cannot be made (" + e.getMessage() + "); choose another place");
        }
        AtomicFile.checkWritable("--plot-dir", json);
        int testSamples = dataOptions.testSamples != null ? dataOptions.testSamples : DEFAULT_TEST_SAMPLES;
        FashionMnist.Splits data =
                DataSetup.load(dataOptions.data, null, testSamples).splits();
        ModelValidation validation = new ModelValidation(
                data,
                new ModelValidation.Plan(
                        dataOptions.trainSamples, testSamples, epochs, calibration == Calibration.fresh));
        PrintStream out = System.out;
        out.printf(
                Locale.ROOT,
                "1 logical GPU timed as the physical device itself (--profile host): %d epochs of each, the first"
                        + " dropped (it compiles the kernels); the median of the others%n%n",
                epochs);
        out.println("| physical | model | batch | images/epoch | wall sec/epoch | simulated | error |");
        out.println("|---|---|---|---|---|---|---|");
        List<ModelValidation.Single> single = new ArrayList<>();
        for (String p : usable) {
            for (Model model : chosen) {
                for (int batch : batchSizes) {
                    ModelValidation.Single s = medianOf(validation, p, model, batch);
                    single.add(s);
                    out.printf(
                            Locale.ROOT,
                            "| %s | %s | %d | %d | %.3f | %.3f | %+.1f%% |%n",
                            p,
                            s.model(),
                            batch,
                            s.images(),
                            s.wallSec(),
                            s.simSec(),
                            100 * s.error());
                }
            }
        }
        out.println();
        printCalibrations(single, out);
        ModelValidation.Single worst = single.stream()
                .max(Comparator.comparingDouble(s -> Math.abs(s.error())))
                .orElseThrow();
        out.printf(
                Locale.ROOT,
                "furthest off: %s %s batch %d (%+.1f%%)",
                worst.physical(),
                worst.model(),
                worst.batch(),
                100 * worst.error());
        if (worst.kernelsTimed()) {
            out.print("; its kernels, measured vs simulated after the first epoch:");
            for (Map.Entry<String, double[]> k : ModelValidation.worstKernels(worst, 4)) {
                out.printf(Locale.ROOT, " %s %.2f vs %.2f s;", k.getKey(), k.getValue()[0], k.getValue()[1]);
            }
            out.println();
        } else {
            out.println("; " + worst.physical() + " runs its kernels after the calls that launch them return, so their"
                    + " own times are not measured here");
        }
        Claim verdict = Claim.below(
                "largest |error| of a simulated epoch (" + worst.physical() + " " + worst.model() + " batch "
                        + worst.batch() + ")",
                Math.abs(worst.error()),
                tolerance);
        out.println(verdict.and(
                        ": the model predicts this machine's epochs at every batch size.",
                        ": the model misses this machine's epochs somewhere.")
                .notice());
        List<ModelValidation.Several> several = several(validation, usable, chosen.getFirst(), out);
        List<Path> chart = ValidationChart.save(single, tolerance, dir);
        Result result = new Result(dataOptions.trainSamples, epochs, tolerance, single, several, worst.error());
        AtomicFile.writeJson(json, result);
        out.println("chart: " + chart.getFirst() + ", results: " + json);
        return 0;
    }

    /** Per physical device, how its calibrations were made: each afresh and how long they took, or the cache's. */
    private void printCalibrations(List<ModelValidation.Single> single, PrintStream out) {
        Map<String, List<Timeline.Calibration>> byDevice = new LinkedHashMap<>();
        for (ModelValidation.Single s : single) {
            byDevice.computeIfAbsent(s.calibration().device(), d -> new ArrayList<>())
                    .add(s.calibration());
        }
        byDevice.forEach((device, calibrations) -> {
            Timeline.Calibration c = calibrations.getFirst();
            DoubleSummaryStatistics took = calibrations.stream()
                    .mapToDouble(Timeline.Calibration::measureSec)
                    .summaryStatistics();
            out.println(
                    calibration == Calibration.cached
                            ? String.format(
                                    Locale.ROOT,
                                    "calibration of %s: kept in %s, measured in %.1f s by %s",
                                    device,
                                    c.file(),
                                    c.measureSec(),
                                    c.cached() ? "an earlier run" : "this one")
                            : String.format(
                                    Locale.ROOT,
                                    "calibration of %s: measured afresh before each configuration, in %.1f to %.1f s",
                                    device,
                                    took.getMin(),
                                    took.getMax()));
        });
    }

    /** {@code repeats} runs of one configuration, and the one whose error is the median. */
    private ModelValidation.Single medianOf(ModelValidation validation, String physical, Model model, int batch) {
        List<ModelValidation.Single> runs = new ArrayList<>();
        for (int i = 0; i < repeats; i++) {
            runs.add(validation.single(physical, model, batch));
        }
        runs.sort(Comparator.comparingDouble(ModelValidation.Single::error));
        return runs.get(runs.size() / 2);
    }

    private List<ModelValidation.Several> several(
            ModelValidation validation, List<String> usable, Model model, PrintStream out) {
        List<ModelValidation.Several> several = new ArrayList<>();
        List<Integer> counts = gpus.stream().filter(g -> g > 1).toList();
        if (counts.isEmpty()) {
            return several;
        }
        out.printf(
                Locale.ROOT,
                "%nseveral logical GPUs on one device (%s, batch %d): they share the one device here (at most one per"
                        + " core at a time), side by side in the model, so the epochs differ; their work, added over the"
                        + " devices, is comparable%n",
                model.name(),
                SEVERAL_BATCH);
        for (String p : usable) {
            for (int k : counts) {
                ModelValidation.Several s = validation.several(p, model, k, SEVERAL_BATCH);
                several.add(s);
                out.printf(
                        Locale.ROOT,
                        "  %d on %s: wall %.2f sec/epoch, simulated %.2f; busy time of all devices after the first epoch:"
                                + " simulated %.2f s, ",
                        k,
                        p,
                        s.wallSec(),
                        s.simSec(),
                        s.simBusySec());
                out.println(
                        s.kernelsTimed()
                                ? String.format(
                                        Locale.ROOT,
                                        "measured %.2f s (%+.1f%%)",
                                        s.measuredBusySec(),
                                        100 * s.busyError())
                                : "not measured (" + p + " times only the launches)");
            }
        }
        return several;
    }

    private void checkOptions() {
        if (epochs < 2) {
            throw new UserError("--epochs must be 2 or more (the first warms up and is dropped), not " + epochs);
        }
        UserError.requireOneOrMore("--repeats", repeats);
        if (!(tolerance > 0)) {
            throw new UserError("--tolerance must be a positive fraction such as 0.15, not " + tolerance);
        }
        for (int b : batchSizes) {
            if (b <= 0) {
                throw new UserError("--batch-sizes must be positive, not " + b);
            }
        }
        for (int g : gpus) {
            if (g <= 0) {
                throw new UserError("--gpus must be positive, not " + g);
            }
        }
        if (dataOptions.trainSamples != null) {
            int largest = batchSizes.stream().mapToInt(Integer::intValue).max().orElse(1);
            if (dataOptions.trainSamples < largest) {
                throw new UserError("--train-samples " + dataOptions.trainSamples + " holds no full batch of " + largest
                        + "; give at least " + largest);
            }
        }
    }

    /** The physical backends asked for that can run here; the others are named with the reason. */
    private List<String> usablePhysical() {
        List<String> usable = new ArrayList<>();
        for (String p : physical) {
            if (p.equals("sim")) {
                throw new UserError("--physical sim: the logical GPUs need a physical device under them; choose cpu"
                        + " or opencl");
            }
            var availability = Backends.find(p).availability();
            if (availability.available()) {
                usable.add(p);
            } else {
                System.out.println("skipping " + p + ": " + availability.reason());
            }
        }
        if (usable.isEmpty()) {
            throw new UserError("none of --physical " + String.join(",", physical) + " can run here");
        }
        return usable;
    }
}
