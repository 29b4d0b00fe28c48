package org.multigpulab.lessons.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.multigpulab.device.CollectiveCostModel;
import org.multigpulab.device.CollectiveCostModel.Collective;
import org.multigpulab.device.CollectiveCostModel.CostedSystem;
import org.multigpulab.device.CollectiveCostModel.SystemSpec;
import org.multigpulab.lessons.collectives.ByteSize;
import org.multigpulab.lessons.collectives.Fit;
import org.multigpulab.lessons.collectives.Measurement;
import org.multigpulab.lessons.collectives.PerfRow;
import org.multigpulab.lessons.collectives.Validation;
import org.multigpulab.lessons.errors.UserError;
import org.multigpulab.lessons.files.AtomicFile;
import org.multigpulab.lessons.setup.PlotDir;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ./lab collectives}: nccl-tests' {@code *_perf} programs for simulated systems. Each size's time comes
 * from the {@code sim} backend's cost model of NCCL (found through {@link CollectiveCostModel}); no data moves,
 * so a sweep to 8 GB on a thousand GPUs takes milliseconds. With {@code --validate}, the model against the
 * published measurements this module carries.
 */
@Command(
        name = "collectives",
        mixinStandardHelpOptions = true,
        description = {
            "nccl-tests' *_perf for simulated systems: a collective's time, algbw and busbw per size.",
            "The sim backend's cost model of NCCL predicts them (no data moves). Flags -b -e -f -i as nccl-tests'.",
            "With --validate: the model against published nccl-tests measurements of real systems, its fitted",
            "figures fitted on the calibration set only and its error reported on the validation set. With --fit:",
            "the fit itself."
        })
final class CollectivesCommand implements Callable<Integer> {

    /** More rows than this is a mistake in -i, not a sweep anyone wants to read. */
    private static final int MAX_ROWS = 10_000;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(
            names = "--op",
            paramLabel = "OP",
            defaultValue = "allreduce",
            description = "allreduce, reducescatter, allgather, broadcast or reduce (default ${DEFAULT-VALUE}).")
    String op;

    @Option(
            names = {"-b", "--minbytes"},
            paramLabel = "SIZE",
            defaultValue = "32M",
            description = "Smallest size in bytes, K/M/G allowed (default ${DEFAULT-VALUE}).")
    String minBytes;

    @Option(
            names = {"-e", "--maxbytes"},
            paramLabel = "SIZE",
            defaultValue = "32M",
            description = "Largest size in bytes, K/M/G allowed (default ${DEFAULT-VALUE}).")
    String maxBytes;

    @Option(
            names = {"-f", "--stepfactor"},
            paramLabel = "F",
            description = "Multiply the size by F from one row to the next (default 2 unless -i is given).")
    Integer stepFactor;

    @Option(
            names = {"-i", "--stepbytes"},
            paramLabel = "SIZE",
            description = "Add SIZE bytes from one row to the next instead.")
    String stepBytes;

    @CommandLine.Mixin
    SystemOptions simulated;

    @Option(
            names = "--nics-per-node",
            paramLabel = "K",
            defaultValue = "0",
            description = "Network cards per node; 0 is one per GPU, as in DGX systems (default ${DEFAULT-VALUE}).")
    int nicsPerNode;

    @Option(
            names = {"-g", "--gpus-per-thread"},
            paramLabel = "G",
            defaultValue = "1",
            description = "GPUs one host thread launches each collective on, as nccl-tests' -g: 1 is a process per"
                    + " GPU (mpirun, DDP), a node's GPU count one thread for them all; small collectives wait for"
                    + " the launches (default ${DEFAULT-VALUE}).")
    int gpusPerThread;

    @Option(
            names = "--algo",
            paramLabel = "ALGO",
            defaultValue = "auto",
            description = "ring, tree, nvls, or auto: the fastest NCCL could choose (default ${DEFAULT-VALUE}).")
    String algo;

    @Option(names = "--json", paramLabel = "FILE", description = "Also write the rows to FILE as JSON.")
    Path json;

    @Option(
            names = "--validate",
            description = "Compare the model with the published measurements of real systems, and chart them.")
    boolean validate;

    @Option(
            names = "--fit",
            description = "Fit the model's fitted figures on the calibration set and print them beside its own.")
    boolean fit;

    @Option(
            names = "--plot-dir",
            paramLabel = "DIR",
            description = "Where --validate writes its charts (default runs/<date>T<time>/).")
    Path plotDir;

    @Option(names = "--debug", description = "Show stack traces of errors.")
    boolean debug;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        CollectiveCostModel model = CollectiveCostModel.find();
        if (fit) {
            return fit(model, out);
        }
        if (validate) {
            return validate(model, out);
        }
        simulated.check();
        Collective collective = Collective.named(op);
        if (collective == null) {
            throw new UserError(
                    "unknown --op '" + op + "'; choose allreduce, reducescatter, allgather, broadcast or reduce");
        }
        List<Long> sizes = sizes();
        if (json != null) {
            AtomicFile.checkWritable("--json", json);
        }
        CostedSystem system = model.system(new SystemSpec(
                simulated.gpus,
                simulated.nodes,
                simulated.profile,
                simulated.topology,
                simulated.nic,
                nicsPerNode,
                gpusPerThread));
        List<PerfRow> rows = new ArrayList<>();
        for (long size : sizes) {
            long aligned = aligned(collective, size);
            rows.add(PerfRow.of(collective, simulated.gpus, aligned, system.estimate(collective, aligned, algo)));
        }
        out.printf(
                "# multigpu-lab collectives: %s on a simulated system, timed by the sim backend's cost model of NCCL"
                        + " (no data moves)%n",
                collective.program());
        out.printf("# system: %s%n", system.description());
        out.printf(
                Locale.ROOT,
                "# minBytes %d maxBytes %d step: %s algorithm: %s%n#%n",
                sizes.getFirst(),
                sizes.getLast(),
                stepBytes != null ? ByteSize.parse("-i", stepBytes) + "(bytes)" : factor() + "(factor)",
                algo.equals("auto") ? "auto (the fastest NCCL could choose)" : algo);
        out.println("#                                                              out-of-place");
        out.println(PerfRow.HEADER);
        rows.forEach(r -> out.println(r.line()));
        out.printf(
                Locale.ROOT,
                "# Avg bus bandwidth    : %.4f%n",
                rows.stream().mapToDouble(PerfRow::busbw).average().orElse(0));
        if (json != null) {
            writeJson(collective, system, rows);
            out.println("# rows: " + json);
        }
        out.flush();
        return 0;
    }

    private Integer validate(CollectiveCostModel model, PrintWriter out) {
        Path dir = PlotDir.choose(plotDir);
        Validation calibration = Validation.of(model, Measurement.calibration());
        out.println("# the calibration set: published nccl-tests runs the fitted figures were fitted on (busbw)");
        calibration.report().forEach(out::println);
        out.println();
        Validation validation = Validation.of(model, Measurement.validation());
        out.println("# the validation set: published nccl-tests runs kept apart from the fit (busbw)");
        validation.report().forEach(out::println);
        Validation.Goal.ISSUE_49.report(validation).forEach(out::println);
        List<Path> files = new ArrayList<>(calibration.charts(model, dir));
        files.addAll(validation.charts(model, dir));
        out.println("charts: " + files.size() + " files in " + dir);
        out.flush();
        return 0;
    }

    private Integer fit(CollectiveCostModel model, PrintWriter out) {
        Fit f = Fit.of(model, Measurement.calibration());
        out.println("# the fitted figures, fitted on the calibration set ("
                + Measurement.calibration().size() + " measurements): least mean squared log error of busbw");
        f.figures()
                .forEach((name, value) -> out.printf(
                        Locale.ROOT,
                        "%-16s fitted %10.4f   the model's %10.4f%n",
                        name,
                        value,
                        model.figures().get(name)));
        out.printf(Locale.ROOT, "rms log error on the calibration set: %.3f%n", f.rmsLogError());
        out.flush();
        return 0;
    }

    /** The sizes nccl-tests would time for -b, -e and -f or -i. */
    private List<Long> sizes() {
        long min = ByteSize.parse("-b", minBytes);
        long max = ByteSize.parse("-e", maxBytes);
        if (min > max) {
            throw new UserError("-b " + minBytes + " is larger than -e " + maxBytes
                    + "; the sweep runs from -b up to -e, so give -b ≤ -e");
        }
        if (stepBytes != null && stepFactor != null) {
            throw new UserError("give -f (multiply the size) or -i (add to it), not both");
        }
        long step = stepBytes == null ? 0 : ByteSize.parse("-i", stepBytes);
        int factor = factor();
        List<Long> sizes = new ArrayList<>();
        for (long size = min; size <= max; size = step > 0 ? size + step : size * factor) {
            if (sizes.size() == MAX_ROWS) {
                throw new UserError("the sweep from -b " + minBytes + " to -e " + maxBytes + " has more than "
                        + MAX_ROWS + " sizes; choose a larger -i or -f");
            }
            sizes.add(size);
            if (size > Long.MAX_VALUE / Math.max(factor, 2) - step) {
                break;
            }
        }
        return sizes;
    }

    private int factor() {
        int f = stepFactor == null ? 2 : stepFactor;
        if (f < 2) {
            throw new UserError(
                    "-f must be 2 or more (the size is multiplied by it), not " + f + "; to add a fixed step, use -i");
        }
        return f;
    }

    /** {@code size} rounded down, as nccl-tests does, to whole floats, and for gather and scatter to whole ranks. */
    private long aligned(Collective c, long size) {
        long unit = (long) Float.BYTES
                * (c == Collective.ALL_GATHER || c == Collective.REDUCE_SCATTER ? simulated.gpus : 1);
        return size / unit * unit;
    }

    private void writeJson(Collective collective, CostedSystem system, List<PerfRow> rows) {
        record Sweep(
                String op,
                String program,
                String system,
                int gpus,
                int nodes,
                String profile,
                String topology,
                String algo,
                List<PerfRow> rows) {}
        AtomicFile.writeJson(
                json,
                new Sweep(
                        collective.option(),
                        collective.program(),
                        system.description(),
                        simulated.gpus,
                        simulated.nodes,
                        simulated.profile,
                        simulated.topology,
                        algo,
                        rows));
    }
}
