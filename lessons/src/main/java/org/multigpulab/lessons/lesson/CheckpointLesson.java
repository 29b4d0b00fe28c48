package org.multigpulab.lessons.lesson;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.multigpulab.core.data.BatchIterator;
import org.multigpulab.core.model.HostTensor;
import org.multigpulab.core.train.TrainingState;
import org.multigpulab.lessons.errors.UserError;
import org.multigpulab.lessons.files.CheckpointFile;
import org.multigpulab.lessons.files.RunReport;
import org.multigpulab.lessons.files.SafeTensors;
import org.multigpulab.lessons.plot.ChartFiles;
import org.multigpulab.lessons.plot.Charts;
import org.multigpulab.lessons.plot.Curve;

/**
 * Checkpoints, as every framework past the notebook has them: {@code ./lab train --checkpoint} in another process,
 * killed with SIGKILL inside its second epoch, then {@code --resume}d; beside it the same run never stopped. The
 * resumed run repeats only the steps after its last checkpoint and ends with the same parameters, bit for bit.
 */
public final class CheckpointLesson implements Lesson {

    /**
     * What the lesson found: the checkpoint the kill left and the batches of an epoch, the epochs of the run never
     * stopped and of the resumed one, and how many of the parameters differ between them (bit for bit).
     */
    public record Outcome(
            TrainingState checkpointed,
            int batchesPerEpoch,
            List<RunReport.Epoch> whole,
            List<RunReport.Epoch> resumed,
            int parameters,
            int differing) {}

    @Override
    public String name() {
        return "checkpoint";
    }

    @Override
    public String summary() {
        return "train --checkpoint, killed with SIGKILL inside an epoch, then --resume: the curve goes on and the"
                + " parameters end bit for bit as if it had never stopped";
    }

    public Outcome demo(LessonContext ctx) {
        int gpus = ctx.gpus(2), batch = ctx.batchSize() * gpus, epochs = ctx.epochs(3);
        int batches = BatchIterator.batchesPerEpoch(ctx.data().train().count(), batch);
        // The run is killed after a checkpoint inside its second epoch: there must be one
        if (epochs < 2 || batches < 2) {
            throw new UserError("this lesson kills a run inside its second epoch, so it needs 2 or more epochs of 2"
                    + " or more batches; it has " + epochs + (epochs == 1 ? " epoch" : " epochs") + " of " + batches
                    + " (" + ctx.data().train().count() + " images in batches of " + batch + "): give --epochs 2 or"
                    + " more, and more --train-samples or a smaller --batch-size");
        }
        Path dir = ctx.plots().resolve("checkpoint");
        Path checkpoint = dir.resolve("run.ckpt");
        try {
            Files.createDirectories(dir);
            Files.deleteIfExists(checkpoint);
        } catch (IOException e) {
            throw new UserError("cannot make " + dir + ": " + e.getMessage());
        }
        List<String> run = new ArrayList<>(List.of(
                "--gpus",
                Integer.toString(gpus),
                "--epochs",
                Integer.toString(epochs),
                "--batch-size",
                Integer.toString(batch),
                "--checkpoint",
                checkpoint.toString(),
                "--checkpoint-every",
                Integer.toString(Math.max(1, batches / 4))));
        run.addAll(deviceOptions(ctx));
        run.addAll(ctx.dataOptions());

        ctx.out().println("1. ./lab train, never stopped:");
        List<String> whole = new ArrayList<>(run);
        whole.set(whole.indexOf("--checkpoint") + 1, dir.resolve("whole.ckpt").toString());
        finish(ctx, start(whole, dir, "whole"));

        ctx.out().println("2. the same run, killed with SIGKILL once its second epoch has a checkpoint:");
        Process killed = start(run, dir, "killed");
        Thread echo = Thread.ofVirtual().start(() -> echo(ctx, killed.inputReader()));
        killInSecondEpoch(killed, checkpoint);
        join(echo);
        TrainingState state = CheckpointFile.read(checkpoint).checkpoint().state();
        ctx.out()
                .printf(
                        "   killed (exit %d); %s holds epoch %d, batch %d of %d%n",
                        killed.exitValue(), checkpoint.getFileName(), state.epoch(), state.batchesDone(), batches);

        ctx.out().println("3. ./lab train --resume " + checkpoint.getFileName() + ":");
        List<String> resume = new ArrayList<>(run);
        resume.addAll(List.of("--resume", checkpoint.toString()));
        finish(ctx, start(resume, dir, "resumed"));

        List<HostTensor> a = SafeTensors.read(dir.resolve("whole.safetensors"));
        List<HostTensor> b = SafeTensors.read(dir.resolve("resumed.safetensors"));
        int parameters = 0, differing = 0;
        for (int t = 0; t < a.size(); t++) {
            for (int i = 0; i < a.get(t).values().length; i++) {
                parameters++;
                if (Float.floatToRawIntBits(a.get(t).values()[i])
                        != Float.floatToRawIntBits(b.get(t).values()[i])) {
                    differing++;
                }
            }
        }
        return new Outcome(
                state,
                batches,
                report(dir, "whole").epochs(),
                report(dir, "resumed").epochs(),
                parameters,
                differing);
    }

    /**
     * {@code java … Lab train options --save NAME.safetensors --report NAME.json --plot-dir dir/NAME} with this
     * JVM's class path, its output and errors together.
     */
    private static Process start(List<String> options, Path dir, String name) {
        List<String> command = LabTrainCommand.start();
        command.addAll(options);
        command.addAll(List.of(
                "--save",
                dir.resolve(name + ".safetensors").toString(),
                "--report",
                dir.resolve(name + ".json").toString(),
                "--plot-dir",
                dir.resolve(name).toString()));
        try {
            return new ProcessBuilder(command).redirectErrorStream(true).start();
        } catch (IOException e) {
            throw new UserError("cannot start java for the " + name + " run: " + e.getMessage());
        }
    }

    /** Prints what {@code p} prints, indented, and checks that it succeeded. */
    private static void finish(LessonContext ctx, Process p) {
        echo(ctx, p.inputReader());
        try {
            if (p.waitFor() != 0) {
                throw new UserError("./lab train failed (exit " + p.exitValue() + "); its output is above");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new UserError("interrupted while ./lab train ran");
        }
    }

    private static void echo(LessonContext ctx, BufferedReader out) {
        try (out) {
            out.lines()
                    .filter(l -> !l.contains("incubator"))
                    .forEach(l -> ctx.out().println("   | " + l));
        } catch (IOException | UncheckedIOException e) {
            // the process was killed mid-line: what it printed before is shown
        }
    }

    /** Watches the checkpoint and kills {@code p} (SIGKILL) as soon as one from inside epoch 2 is in place. */
    private static void killInSecondEpoch(Process p, Path checkpoint) {
        try {
            boolean inSecondEpoch = false;
            while (!inSecondEpoch && p.isAlive()) {
                if (Files.exists(checkpoint)) {
                    TrainingState at =
                            CheckpointFile.read(checkpoint).checkpoint().state();
                    inSecondEpoch = at.epoch() >= 2 && !at.atEpochStart();
                }
                if (!inSecondEpoch) {
                    Thread.sleep(20);
                }
            }
            if (!inSecondEpoch) {
                throw new UserError("the run ended (exit " + p.exitValue() + ") before it wrote a checkpoint inside"
                        + " its second epoch, so there was nothing to kill; its output is above");
            }
            p.toHandle().destroyForcibly();
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                throw new UserError("the killed run did not end within 30 s");
            }
            if (p.exitValue() == 0) {
                throw new UserError("the run ended by itself before the kill reached it; give it more"
                        + " --train-samples so that its second epoch lasts longer");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new UserError("interrupted while waiting to kill the run");
        }
    }

    private static void join(Thread t) {
        try {
            t.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static RunReport report(Path dir, String name) {
        try {
            return RunReport.fromJson(Files.readString(dir.resolve(name + ".json")));
        } catch (IOException e) {
            throw new UserError("the " + name + " run left no report: " + e.getMessage());
        }
    }

    /** The command line's device options, for the runs in other processes. */
    private static List<String> deviceOptions(LessonContext ctx) {
        List<String> options =
                new ArrayList<>(List.of("--backend", ctx.devices().backend()));
        String[][] simOptions = {
            {"--physical", ctx.devices().physical()},
            {"--profile", ctx.devices().profile()},
            {"--topology", ctx.devices().topology()}
        };
        for (String[] o : simOptions) {
            if (o[1] != null) {
                options.addAll(List.of(o));
            }
        }
        return options;
    }

    @Override
    public void run(LessonContext ctx) {
        report(ctx, demo(ctx));
    }

    /** The chart and what to notice, from the runs of {@link #demo}. */
    public void report(LessonContext ctx, Outcome o) {
        Curve whole = new Curve("never stopped"), resumed = new Curve("killed in epoch 2, resumed");
        o.whole().forEach(e -> whole.add(e.epoch(), e.testAcc()));
        o.resumed().forEach(e -> resumed.add(e.epoch(), e.testAcc()));
        ChartFiles.save(
                Charts.lines(
                        "Test accuracy, killed and resumed", "epoch", "test accuracy", List.of(whole, resumed), true),
                ctx.plots(),
                "checkpoint-learning-curve");
        TrainingState at = o.checkpointed();
        boolean sameCurve = accuracies(o.resumed()).equals(accuracies(o.whole()));
        Claim parameters = new Claim(
                o.differing() == 0,
                String.format(
                        Locale.ROOT,
                        "%s: %,d of %,d parameters differ from those of the run never stopped",
                        o.differing() == 0 ? "the same parameters, bit for bit" : "other parameters",
                        o.differing(),
                        o.parameters()));
        ctx.out()
                .printf(
                        "Notice: the run killed in epoch 2 resumed from its last checkpoint (epoch %d, batch %d of %d),"
                                + " repeating only the steps after it; its curve goes on (test acc %s) %s the run"
                                + " never stopped (%s); %s%s. Plot: %s%n",
                        at.epoch(),
                        at.batchesDone(),
                        o.batchesPerEpoch(),
                        accuracies(o.resumed()),
                        sameCurve ? "as" : "apart from",
                        accuracies(o.whole()),
                        parameters.text(),
                        parameters.holds()
                                ? ", since parameters, position and the shuffle seed are all a step depends on (SGD"
                                        + " here has no momentum)"
                                : "",
                        ctx.plots().resolve("checkpoint-learning-curve.png"));
    }

    private static List<String> accuracies(List<RunReport.Epoch> epochs) {
        return epochs.stream()
                .map(e -> String.format(Locale.ROOT, "%.3f", e.testAcc()))
                .toList();
    }
}
