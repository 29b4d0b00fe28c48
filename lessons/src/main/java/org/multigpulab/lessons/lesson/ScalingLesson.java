package org.multigpulab.lessons.lesson;

import java.util.ArrayList;
import java.util.List;
import org.multigpulab.core.data.BatchIterator;
import org.multigpulab.core.model.LeNet;
import org.multigpulab.core.model.Model;
import org.multigpulab.core.parallel.AllReduceAlgorithm;
import org.multigpulab.core.parallel.ReplicaUpdate;
import org.multigpulab.core.parallel.Scatter;
import org.multigpulab.core.train.DataParallelTrainer;
import org.multigpulab.core.train.TrainResult;
import org.multigpulab.core.train.TrainingListener;
import org.multigpulab.device.Device;
import org.multigpulab.device.KernelTime;
import org.multigpulab.device.Timeline;
import org.multigpulab.lessons.errors.UserError;
import org.multigpulab.lessons.plot.ChartFiles;
import org.multigpulab.lessons.plot.Charts;
import org.multigpulab.lessons.plot.Curve;
import org.multigpulab.lessons.setup.DeviceSetup;
import org.multigpulab.lessons.simulate.NotebookHost;
import org.multigpulab.lessons.simulate.TimeOnlyEpoch;

/**
 * What more GPUs buy: the notebook's training on 1, 2, 4 and 8 simulated GPUs of two kinds, the same global
 * batch (strong scaling) and a batch that grows with the GPUs (weak scaling), with where each step's time goes;
 * then ResNet-50 against LeNet as DDP trains them ({@link DdpScaling}).
 */
public final class ScalingLesson implements Lesson {

    static final int[] GPUS = {1, 2, 4, 8};
    private static final int SAMPLED_STEPS = 5;

    /** One run: simulated and wall seconds per epoch, and where the time of one step went on the last GPU. */
    public record Row(
            String profile,
            String description,
            int gpus,
            int batchSize,
            double simSecPerEpoch,
            double wallSecPerEpoch,
            Step step) {}

    /** One training step on the last GPU: its kernels, its links and its idle time, in simulated seconds. */
    public record Step(double seconds, double computeSec, double commSec, double idleSec, long launches) {}

    @Override
    public String name() {
        return "scaling";
    }

    @Override
    public String summary() {
        return "1, 2, 4, 8 simulated GPUs (T4 over PCIe, H100 over NVLink): why this LeNet hardly scales, and how"
                + " ResNet-50 scales with DDP up to --gpus (default 16, on two nodes)";
    }

    /** The profiles compared: the one given with --profile (default the notebook's T4) and a recent one. */
    static List<String> profiles(DeviceSetup setup) {
        String first = setup.profile() == null ? "t4" : setup.profile();
        return List.of(first, first.equalsIgnoreCase("h100") ? "a100" : "h100");
    }

    public List<Row> rows(LessonContext ctx) {
        if (!ctx.devices().backend().equals("sim")) {
            throw new UserError("the scaling lesson simulates GPUs; run it with --backend sim (the default), not "
                    + ctx.devices().backend());
        }
        int batch = ctx.batchSize();
        int epochs = ctx.epochs(1);
        List<Row> rows = new ArrayList<>();
        for (String profile : profiles(ctx.devices())) {
            DeviceSetup setup = ctx.devices().withProfile(profile);
            for (int k : GPUS) {
                rows.add(run(ctx, setup, k, batch, epochs));
            }
        }
        DeviceSetup first = ctx.devices().withProfile(profiles(ctx.devices()).getFirst());
        for (int k : GPUS) {
            if (k > 1) {
                rows.add(run(ctx, first, k, k * batch, epochs)); // weak scaling: every GPU keeps its batch
            }
        }
        return rows;
    }

    private static Row run(LessonContext ctx, DeviceSetup setup, int k, int batch, int epochs) {
        Step[] step = new Step[1];
        TrainResult r = ctx.train(
                setup,
                k,
                LessonContext.recipe(epochs, batch, 0.2f),
                new TrainingListener() {},
                trainer -> step[0] = sampleSteps(ctx, trainer, batch, epochs + 1));
        Row row = new Row(setup.profile(), r.simulated(), k, batch, r.simulatedSecPerEpoch(), r.secPerEpoch(), step[0]);
        ctx.out()
                .printf(
                        "%-36s batch %4d: %s sec/epoch simulated, %.1f on this machine; a step: %s ms, GPU %d"
                                + " computing %.0f%%, on the links %.0f%%, idle %.0f%%%n",
                        row.description(),
                        batch,
                        TrainResult.seconds(row.simSecPerEpoch()),
                        row.wallSecPerEpoch(),
                        TrainResult.seconds(step[0].seconds() * 1e3),
                        k - 1,
                        100 * step[0].computeSec() / step[0].seconds(),
                        100 * step[0].commSec() / step[0].seconds(),
                        100 * step[0].idleSec() / step[0].seconds());
        return row;
    }

    /**
     * A few more steps after training (numbered as epoch {@code epoch}), timed on their own: where one step's time
     * goes on the last GPU.
     */
    private static Step sampleSteps(LessonContext ctx, DataParallelTrainer trainer, int batch, int epoch) {
        Timeline timeline = trainer.timeline().orElseThrow();
        Timeline.DeviceTime before = timeline.devices().getLast();
        double start = timeline.now();
        BatchIterator batches = new BatchIterator(ctx.data().train(), batch);
        int steps = 0;
        for (; steps < SAMPLED_STEPS && batches.hasNext(); steps++) {
            trainer.trainBatch(batches.next(), 0f, epoch);
            trainer.devices().forEach(Device::synchronize);
        }
        Timeline.DeviceTime after = timeline.devices().getLast();
        // the steps taken: an epoch of fewer batches than SAMPLED_STEPS has fewer to sample
        double n = steps;
        return new Step(
                (timeline.now() - start) / n,
                (after.computeSec() - before.computeSec()) / n,
                (after.commSec() - before.commSec()) / n,
                (after.idleSec() - before.idleSec()) / n,
                Math.round((launches(after) - launches(before)) / n));
    }

    /** The kernels the GPU was charged with: a fused call here counts as the separate ones a GPU would launch. */
    private static long launches(Timeline.DeviceTime device) {
        return device.kernels().stream().mapToLong(KernelTime::launches).sum();
    }

    @Override
    public void run(LessonContext ctx) {
        report(ctx, rows(ctx));
        beyondOneNode(ctx);
        DdpScaling.run(ctx);
    }

    /**
     * Time-only epochs (nothing computed): what the notebook's own host program costs at 1 to 8 GPUs, and 64 GPUs
     * in 8 nodes with a batch per GPU.
     */
    private static void beyondOneNode(LessonContext ctx) {
        String profile = profiles(ctx.devices()).getFirst();
        int images = ctx.data().train().count();
        int batch = ctx.batchSize();
        ctx.out()
                .printf(
                        "%nWith the notebook's host (Python, PyTorch, its DataLoader; scripts/pytorch-host.py%s):%n",
                        NotebookHost.hostCpu(profile) != null ? "; on Colab's 2 vCPUs of a Broadwell Xeon" : "");
        for (int k : GPUS) {
            TimeOnlyEpoch.Result r = timeOnly(profile, k, 1, batch, images, true);
            double gpusAlone = timeOnly(profile, k, 1, batch, images, false).secPerEpoch();
            ctx.out()
                    .printf(
                            "  %d GPU%s, batch %d: %s sec/epoch, GPUs alone %s: the host costs %s s (%.0f%%)%n",
                            k,
                            k == 1 ? "" : "s",
                            batch,
                            TrainResult.seconds(r.withDataLoaderSec()),
                            TrainResult.seconds(gpusAlone),
                            TrainResult.seconds(r.withDataLoaderSec() - gpusAlone),
                            100 * (1 - gpusAlone / r.withDataLoaderSec()));
        }
        for (int[] system : new int[][] {{8, 1}, {64, 8}}) {
            TimeOnlyEpoch.Result r = timeOnly(profile, system[0], system[1], batch * system[0], images, false);
            ctx.out()
                    .printf(
                            "%s, batch %d per GPU: %s sec/epoch in %d step%s (time only)%n",
                            r.description(),
                            batch,
                            TrainResult.seconds(r.secPerEpoch()),
                            r.steps(),
                            r.steps() == 1 ? "" : "s");
        }
    }

    private static TimeOnlyEpoch.Result timeOnly(
            String profile, int gpus, int nodes, int batch, int images, boolean pytorchHost) {
        return TimeOnlyEpoch.run(
                new TimeOnlyEpoch.Setup(
                        gpus,
                        nodes,
                        profile,
                        null,
                        null,
                        Model.named("lenet"),
                        batch,
                        images,
                        AllReduceAlgorithm.NAIVE,
                        0,
                        pytorchHost,
                        pytorchHost ? NotebookHost.hostCpu(profile) : null,
                        ReplicaUpdate.EACH,
                        false),
                null);
    }

    /** The charts and the explanation, from the runs of {@link #rows}. */
    public void report(LessonContext ctx, List<Row> rows) {
        List<String> profiles = profiles(ctx.devices());
        List<Curve> simulated = new ArrayList<>(), speedUp = new ArrayList<>();
        Curve wall = new Curve("this machine, wall");
        Curve ideal = new Curve("ideal");
        for (int k : GPUS) {
            ideal.add(k, k);
        }
        for (String profile : profiles) {
            List<Row> strong = strong(rows, profile, ctx.batchSize());
            Curve sim = new Curve(strong.getFirst().description().replaceFirst("^1× ", ""));
            Curve up = new Curve(sim.label() + ", batch " + ctx.batchSize());
            for (Row r : strong) {
                sim.add(r.gpus(), r.simSecPerEpoch());
                up.add(r.gpus(), strong.getFirst().simSecPerEpoch() / r.simSecPerEpoch());
                if (profile.equals(profiles.getFirst())) {
                    wall.add(r.gpus(), r.wallSecPerEpoch());
                }
            }
            simulated.add(sim);
            speedUp.add(up);
        }
        Row one = strong(rows, profiles.getFirst(), ctx.batchSize()).getFirst();
        Curve weak = new Curve(one.description().replaceFirst("^1× ", "") + ", batch " + ctx.batchSize() + " per GPU");
        weak.add(1, 1);
        for (Row r : rows) {
            if (r.batchSize() != ctx.batchSize()) {
                // throughput against one GPU: k times the images in the time of one epoch of k·batch steps
                weak.add(r.gpus(), one.simSecPerEpoch() / r.simSecPerEpoch());
            }
        }
        speedUp.add(weak);
        speedUp.add(ideal);
        ChartFiles.save(
                Charts.bars(
                        "Simulated sec/epoch, global batch " + ctx.batchSize(), "GPUs", "seconds per epoch", simulated),
                ctx.plots(),
                "scaling-simulated");
        ChartFiles.save(
                Charts.bars("Wall sec/epoch here (the same runs)", "GPUs", "seconds per epoch", List.of(wall)),
                ctx.plots(),
                "scaling-wall");
        ChartFiles.save(
                Charts.lines("Speed-up over one GPU (simulated)", "GPUs", "speed-up", speedUp, false),
                ctx.plots(),
                "scaling-speedup");

        Row eight = strong(rows, profiles.getFirst(), ctx.batchSize()).getLast();
        Step s = eight.step();
        ctx.out()
                .printf(
                        "%nWhy it hardly scales: with 8 GPUs GPU 7 holds %d images and computes for %s ms of"
                                + " a %s ms step. The rest it waits: one host thread issues every GPU's %d kernels one after"
                                + " another, and LeNet's %.2f MB of gradients cross the links (%s ms of each step). Kernels"
                                + " this small cost their launch, not their arithmetic.%n",
                        Scatter.shardSizes(eight.batchSize(), 8)[7],
                        TrainResult.seconds(s.computeSec() * 1e3),
                        TrainResult.seconds(s.seconds() * 1e3),
                        s.launches(),
                        LessonContext.gradientMegabytes(new LeNet().parameterCount()),
                        TrainResult.seconds(s.commSec() * 1e3));
        Row weakEight = rows.getLast();
        ctx.out()
                .printf(
                        "What would scale: more work per GPU per launch. Keeping %d images per GPU (weak scaling),"
                                + " 8 GPUs go through the data %.1f× as fast as one; so would a bigger model, or one process"
                                + " per GPU (DDP) so that no host thread serialises the launches.%n",
                        ctx.batchSize(), one.simSecPerEpoch() / weakEight.simSecPerEpoch());
        for (Claim c : claims(one, eight, weakEight)) {
            ctx.out().println(c.notice());
        }
        ctx.out().printf("Plots in %s%n", ctx.plots());
    }

    /**
     * The conclusions, in simulated time: whether 8 GPUs reach half the ideal speed-up over one, at the same
     * global batch (strong scaling) and at the same batch per GPU (weak scaling).
     */
    static List<Claim> claims(Row one, Row eight, Row weakEight) {
        double half = eight.gpus() / 2.0;
        Claim strong = Claim.ratioAbove(
                        "simulated speed-up of " + eight.gpus() + " GPUs over 1 at a global batch of " + one.batchSize()
                                + ", sec/epoch",
                        one.simSecPerEpoch(),
                        eight.simSecPerEpoch(),
                        half)
                .and(
                        ": at least half of ideal, it scales.",
                        one.simSecPerEpoch() < eight.simSecPerEpoch()
                                ? ": below 1, so 8 GPUs are slower than one: it does not scale."
                                : ": under half of ideal, it hardly scales.");
        Claim weak = Claim.ratioAbove(
                        "simulated speed-up of " + weakEight.gpus() + " GPUs over 1 at " + one.batchSize()
                                + " images per GPU, sec/epoch",
                        one.simSecPerEpoch(),
                        weakEight.simSecPerEpoch(),
                        half)
                .and(
                        ": with the work per GPU kept, at least half of ideal.",
                        ": even with the work per GPU kept," + " under half of ideal.");
        return List.of(strong, weak);
    }

    static List<Row> strong(List<Row> rows, String profile, int batch) {
        return rows.stream()
                .filter(r -> r.profile().equals(profile) && r.batchSize() == batch)
                .toList();
    }
}
