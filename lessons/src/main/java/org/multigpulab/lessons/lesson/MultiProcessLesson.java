package org.multigpulab.lessons.lesson;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.multigpulab.core.model.HostTensor;
import org.multigpulab.core.model.ParameterDistance;
import org.multigpulab.lessons.errors.UserError;
import org.multigpulab.lessons.files.RunReport;
import org.multigpulab.lessons.files.SafeTensors;
import org.multigpulab.lessons.plot.ChartFiles;
import org.multigpulab.lessons.plot.Charts;
import org.multigpulab.lessons.plot.Curve;

/**
 * Beyond one process: the same training on 1, 2 and 4 MPI ranks started by {@code mpirun}, one device each, the
 * global batch shared among them; what crosses between the processes every step and what it costs.
 */
public final class MultiProcessLesson implements Lesson {

    static final int[] RANKS = {1, 2, 4};
    private static final String MPIRUN = "mpirun";
    /** One run: its ranks, test accuracy, wall sec/epoch, and the cross-rank allreduce per step. */
    public record Row(
            int ranks,
            double testAcc,
            double secPerEpoch,
            long crossRankCalls,
            Double crossRankMsPerStep,
            List<HostTensor> model) {}

    /**
     * Models that differ only by float rounding: the ranks sum the same gradients in another order. The bound is
     * DataParallelTrainerTest's for k devices against one over a few steps, 1e-4 relative.
     */
    static final double SAME_MODEL = 1e-4;

    @Override
    public String name() {
        return "multi-process";
    }

    @Override
    public String summary() {
        return "1, 2, 4 MPI ranks (mpirun): the same model, what crosses between processes and what it costs";
    }

    public List<Row> rows(LessonContext ctx) {
        List<Row> rows = new ArrayList<>();
        for (int ranks : RANKS) {
            rows.add(run(ctx, ranks));
        }
        return rows;
    }

    /**
     * {@code mpirun -np ranks java … Lab train --dist mpi trainOptions}, with this JVM's class path, so the ranks
     * run the same build as the caller; {@code --oversubscribe} for more ranks than cores, and
     * {@code --allow-run-as-root} where it runs as root (containers).
     */
    public static List<String> mpirunTrain(int ranks, List<String> trainOptions) {
        List<String> command = new ArrayList<>(List.of(MPIRUN, "--oversubscribe", "-np", Integer.toString(ranks)));
        if ("root".equals(System.getProperty("user.name"))) {
            command.add(1, "--allow-run-as-root");
        }
        command.addAll(LabTrainCommand.start());
        command.addAll(List.of("--dist", "mpi"));
        command.addAll(trainOptions);
        return command;
    }

    private static Row run(LessonContext ctx, int ranks) {
        Path report = ctx.plots().resolve("multi-process-" + ranks + "-ranks.json");
        Path model = ctx.plots().resolve("multi-process-" + ranks + "-ranks.safetensors");
        List<String> train = new ArrayList<>(List.of(
                "--gpus",
                "1",
                "--epochs",
                Integer.toString(ctx.epochs(1)),
                "--batch-size",
                Integer.toString(ctx.batchSize()),
                "--quiet",
                "--report",
                report.toString(),
                "--save",
                model.toString(),
                "--plot-dir",
                ctx.plots().resolve("multi-process-" + ranks + "-ranks").toString()));
        train.addAll(ctx.dataOptions());
        List<String> command = mpirunTrain(ranks, train);
        String output;
        int exit;
        try {
            Files.createDirectories(ctx.plots());
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            exit = p.waitFor();
        } catch (IOException e) {
            throw new UserError("the multi-process lesson starts " + MPIRUN + ", which is not installed here ("
                    + e.getMessage() + "); install Open MPI: apt-get install openmpi-bin");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new UserError("interrupted while " + ranks + " ranks trained");
        }
        if (exit != 0) {
            throw new UserError("mpirun with " + ranks + " ranks failed (exit " + exit + "):\n" + output.strip());
        }
        try {
            RunReport r = RunReport.fromJson(Files.readString(report));
            Row row = new Row(
                    ranks,
                    r.finalResult().testAcc(),
                    r.finalResult().wallSecPerEpoch(),
                    r.dist().crossRankCalls(),
                    r.dist().crossRankMsPerCall(),
                    SafeTensors.read(model));
            ctx.out()
                    .printf(
                            "%d rank%s: test acc %.3f, %.1f sec/epoch; %s%n",
                            ranks,
                            ranks == 1 ? " " : "s",
                            row.testAcc(),
                            row.secPerEpoch(),
                            row.crossRankMsPerStep() == null
                                    ? "nothing crosses between processes"
                                    : String.format(
                                            Locale.ROOT,
                                            "each step every rank sends and receives its"
                                                    + " %.2f MB of summed gradients through Open MPI: %.2f ms per step",
                                            LessonContext.gradientMegabytes(row.model().stream()
                                                    .mapToLong(t -> t.values().length)
                                                    .sum()),
                                            row.crossRankMsPerStep()));
            return row;
        } catch (IOException e) {
            throw new UserError("mpirun ended without the report " + report + ": " + e.getMessage());
        }
    }

    @Override
    public void run(LessonContext ctx) {
        report(ctx, rows(ctx));
    }

    /** The charts and what to notice, from the runs of {@link #rows}. */
    public void report(LessonContext ctx, List<Row> rows) {
        Curve wall = new Curve("wall sec/epoch"), cross = new Curve("cross-rank allreduce, ms/step");
        for (Row r : rows) {
            wall.add(r.ranks(), r.secPerEpoch());
            cross.add(r.ranks(), r.crossRankMsPerStep() == null ? 0 : r.crossRankMsPerStep());
        }
        ChartFiles.save(
                Charts.bars(
                        "sec/epoch against MPI ranks (one device each)",
                        "ranks",
                        "wall seconds per epoch",
                        List.of(wall)),
                ctx.plots(),
                "multi-process-sec-per-epoch");
        ChartFiles.save(
                Charts.bars("Summing gradients across ranks", "ranks", "milliseconds per step", List.of(cross)),
                ctx.plots(),
                "multi-process-allreduce");
        for (Claim c : claims(rows)) {
            ctx.out().println(c.notice());
        }
        Row last = rows.getLast();
        ctx.out()
                .printf(
                        "The processes here share this machine's cores, so more ranks do not train faster; what the"
                                + " lesson shows is the price of crossing processes, %.2f ms a step with %d ranks, which"
                                + " over a network grows with the gradient's size and shrinks with the link's speed."
                                + " Plots in %s%n",
                        last.crossRankMsPerStep(), last.ranks(), ctx.plots());
    }

    /** The conclusion for each run of several ranks: its saved model is the one rank's, up to float rounding. */
    static List<Claim> claims(List<Row> rows) {
        Row one = rows.getFirst();
        return rows.subList(1, rows.size()).stream()
                .map(r -> Claim.below(
                                "relative distance of the models saved by " + r.ranks() + " ranks and by 1 rank:",
                                ParameterDistance.relative(r.model(), one.model()),
                                SAME_MODEL)
                        .and(
                                String.format(
                                        Locale.ROOT,
                                        ": the same model (test acc %.3f and %.3f); every rank trains on its chunk of"
                                                + " each batch and starts from rank 0's parameters.",
                                        r.testAcc(),
                                        one.testAcc()),
                                ": the ranks trained different models."))
                .toList();
    }
}
