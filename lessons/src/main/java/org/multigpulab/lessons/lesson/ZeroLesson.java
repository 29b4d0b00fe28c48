package org.multigpulab.lessons.lesson;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import org.multigpulab.core.data.BatchIterator;
import org.multigpulab.core.data.FashionMnist;
import org.multigpulab.core.model.HostTensor;
import org.multigpulab.core.model.LeNet;
import org.multigpulab.core.model.Mlp;
import org.multigpulab.core.model.Model;
import org.multigpulab.core.model.UpdateDistance;
import org.multigpulab.core.optim.Adam;
import org.multigpulab.core.parallel.AllReduceAlgorithm;
import org.multigpulab.core.parallel.ZeroStage;
import org.multigpulab.core.train.DataParallelTrainer;
import org.multigpulab.core.train.DeviceMemory;
import org.multigpulab.core.train.TrainConfig;
import org.multigpulab.device.Backends;
import org.multigpulab.device.CollectiveCostModel;
import org.multigpulab.device.CollectiveCostModel.Collective;
import org.multigpulab.device.Device;
import org.multigpulab.device.DeviceRequest;
import org.multigpulab.device.OutOfDeviceMemoryException;
import org.multigpulab.device.Timeline;
import org.multigpulab.lessons.plot.ChartFiles;
import org.multigpulab.lessons.plot.Charts;
import org.multigpulab.lessons.plot.Curve;
import org.multigpulab.lessons.simulate.TimeOnlyEpoch;

/**
 * ZeRO's stages as a trade: what each GPU holds of the model's state against the bytes it sends each step. First the
 * same update from every stage; then, for d2l's MLP made wide (its parameters and Adam's state outweigh its
 * activations), each GPU's memory and traffic at stages 0 to 3 on 1, 2, 4 and 8 simulated A100s; then the
 * out-of-memory error a student meets on GPUs of 240 MiB, which stage 3 alone avoids.
 */
public final class ZeroLesson implements Lesson {

    static final int[] GPUS = {1, 2, 4, 8};
    private static final String PROFILE = "a100";
    private static final int IMAGES_PER_GPU = 32;
    private static final int TIMED_STEPS = 3;
    private static final int SAME_UPDATE_STEPS = 10;
    private static final float LR = 1e-3f;
    /**
     * The memory of the small GPUs, in MiB (--memory-mb): stage 0's 16Ψ of the wide MLP (496 MB) does not fit, and
     * on 4 GPUs neither do the peaks of stages 1 and 2 (measured 324 and 276 MB), while stage 3's (233 MB) does.
     */
    static final int SMALL_GPU_MB = 240;

    /**
     * One stage on {@code gpus} GPUs: GPU 0's memory, the model state ZeRO's paper counts for it, the bytes GPU 0
     * sent per step, the stage's collectives per step in the NCCL model, and the simulated step.
     */
    public record Row(
            int gpus,
            ZeroStage stage,
            DeviceMemory memory,
            long zeroCount,
            long sentPerStep,
            double collectivesSec,
            double stepSec) {}

    /**
     * The lesson's measurements: each stage's update distance to stage 0's, the table, the first out-of-memory
     * message on the small GPUs and the stages that fit them.
     */
    public record Result(List<Double> distances, List<Row> rows, String outOfMemory, List<Row> smallGpus) {}

    @Override
    public String name() {
        return "zero";
    }

    @Override
    public String summary() {
        return "ZeRO stages 0-3: the same update; what each simulated GPU holds against what it sends; OOM avoided";
    }

    @Override
    public void run(LessonContext ctx) {
        Result r = measure(ctx);
        plot(ctx, r.rows());
        ctx.out().println(conclusion(r).notice());
    }

    /** The table's trade as two bar charts, one bar per stage at each GPU count: memory held, bytes sent. */
    private static void plot(LessonContext ctx, List<Row> rows) {
        List<Curve> held = new ArrayList<>(), sent = new ArrayList<>();
        for (ZeroStage stage : ZeroStage.values()) {
            Curve h = new Curve("stage " + stage.number()), s = new Curve("stage " + stage.number());
            for (Row r : rows) {
                if (r.stage() == stage) {
                    h.add(r.gpus(), r.memory().modelState() / 1e6);
                    s.add(r.gpus(), r.sentPerStep() / 1e6);
                }
            }
            held.add(h);
            sent.add(s);
        }
        ChartFiles.save(
                Charts.bars("ZeRO: model state each GPU holds", "GPUs", "MB (parameters, gradients, Adam)", held),
                ctx.plots(),
                "zero-memory");
        ChartFiles.save(
                Charts.bars("ZeRO: what each GPU sends per step", "GPUs", "MB sent per step", sent),
                ctx.plots(),
                "zero-bytes-sent");
    }

    public Result measure(LessonContext ctx) {
        List<Double> distances = sameUpdate(ctx);
        Mlp wide = Mlp.wide();
        List<HostTensor> init = wide.initialState(1);
        ctx.out()
                .printf(
                        Locale.ROOT,
                        "%nAdamW in float32 on simulated %ss, time-only (nothing computed), %s: Ψ = %,d parameters, %d"
                                + " images per GPU. ZeRO counts a GPU's model state as 16Ψ, 8Ψ + 8Ψ/N, 4Ψ + 12Ψ/N and"
                                + " 16Ψ/N bytes for stages 0 to 3 on N GPUs.%n",
                        PROFILE.toUpperCase(Locale.ROOT),
                        "d2l's MLP with eight hidden layers of 2,048 units",
                        wide.parameterCount(),
                        IMAGES_PER_GPU);
        ctx.out()
                .printf(
                        "%4s %5s %9s %9s %9s | %11s %12s | %11s %9s | %9s | %17s | %10s%n",
                        "GPUs",
                        "stage",
                        "params",
                        "grads",
                        "Adam",
                        "model state",
                        "ZeRO's count",
                        "activations",
                        "peak",
                        "sent/step",
                        "NCCL collectives",
                        "step (sim)");
        List<Row> rows = new ArrayList<>();
        for (int gpus : GPUS) {
            for (ZeroStage stage : ZeroStage.values()) {
                Row row = timed(wide, init, gpus, stage, 0);
                rows.add(row);
                print(ctx, row);
            }
        }
        ctx.out()
                .printf(
                        Locale.ROOT,
                        "%nThe same on 4 GPUs of %d MiB each (--memory-mb), as a student with small GPUs would meet it:%n",
                        SMALL_GPU_MB);
        String outOfMemory = null;
        List<Row> small = new ArrayList<>();
        for (ZeroStage stage : ZeroStage.values()) {
            try {
                Row row = timed(wide, init, 4, stage, SMALL_GPU_MB);
                small.add(row);
                ctx.out()
                        .printf(
                                Locale.ROOT,
                                "  stage %d: fits, peak %.1f MiB of %d MiB%n",
                                stage.number(),
                                row.memory().peak() / (double) (1 << 20),
                                SMALL_GPU_MB);
            } catch (OutOfDeviceMemoryException e) {
                if (outOfMemory == null) {
                    outOfMemory = e.getMessage();
                }
                ctx.out().printf("  stage %d: %s%n", stage.number(), e.getMessage());
            }
        }
        return new Result(distances, rows, outOfMemory, small);
    }

    /**
     * LeNet trained with AdamW for a few steps on the lesson's devices at every stage from the same start: the
     * distance of each stage's update to stage 0's.
     */
    private static List<Double> sameUpdate(LessonContext ctx) {
        int gpus = ctx.gpus(4);
        int batch = ctx.batchSize();
        LeNet lenet = new LeNet();
        List<HostTensor> init = lenet.initialState(1);
        FashionMnist.Splits data = ctx.data();
        int steps = Math.min(
                SAME_UPDATE_STEPS, BatchIterator.batchesPerEpoch(data.train().count(), batch));
        ctx.out()
                .printf(
                        Locale.ROOT,
                        "The same update: LeNet, AdamW (lr %s), %d steps of %d images on %d GPUs, at every stage from"
                                + " the same start, each GPU's gradients added in the notebook's order.%n",
                        LR,
                        steps,
                        batch,
                        gpus);
        List<HostTensor> plain = null;
        List<Double> distances = new ArrayList<>();
        for (ZeroStage stage : ZeroStage.values()) {
            TrainConfig config = LessonContext.recipe(1, batch, LR)
                    .withOptimizer(Adam.adamW())
                    .withZero(stage);
            List<Device> devices = ctx.open(gpus);
            List<HostTensor> after;
            try (DataParallelTrainer trainer = new DataParallelTrainer(devices, lenet, init, config)) {
                BatchIterator it = new BatchIterator(data.train(), batch);
                for (int s = 0; s < steps; s++) {
                    trainer.trainBatch(it.next(), LR, 1);
                }
                after = trainer.parameters();
            } finally {
                devices.forEach(Device::close);
            }
            if (plain == null) {
                plain = after;
                continue;
            }
            double d = UpdateDistance.of(init, after, plain).worst().relative();
            distances.add(d);
            ctx.out()
                    .printf(
                            Locale.ROOT,
                            "  stage %d: the update %s stage 0's%n",
                            stage.number(),
                            d == 0 ? "is bit for bit" : String.format(Locale.ROOT, "is within %.1e of", d));
        }
        return distances;
    }

    /**
     * {@code model} from {@code init} on {@code gpus} time-only A100s (of {@code memoryMb} each, 0 for the
     * profile's) at {@code stage}: its memory once the trainer stands, then {@link #TIMED_STEPS} steps timed.
     */
    static Row timed(Model model, List<HostTensor> init, int gpus, ZeroStage stage, int memoryMb) {
        Map<String, String> options = new HashMap<>();
        options.put("compute", "off");
        options.put("profile", PROFILE);
        if (memoryMb > 0) {
            options.put("memory-mb", Integer.toString(memoryMb));
        }
        List<Device> devices = Backends.open("sim", new DeviceRequest(gpus, options));
        int batch = IMAGES_PER_GPU * gpus;
        TrainConfig config = asNccl(new TrainConfig(1, batch, LR, 1, false, false).withOptimizer(Adam.adamW()), stage);
        try (DataParallelTrainer trainer = new DataParallelTrainer(devices, model, init, config)) {
            Timeline timeline = trainer.timeline().orElseThrow();
            Device first = devices.getFirst();
            BatchIterator it = new BatchIterator(
                    TimeOnlyEpoch.blank(model.input(), batch * TIMED_STEPS).train(), batch);
            devices.forEach(Device::resetPeakMemory); // the peak of the steps, not of setting the model up
            double start = timeline.now();
            long sent = first.stats().bytesToPeers();
            for (int s = 0; s < TIMED_STEPS; s++) {
                trainer.trainBatch(it.next(), LR, 1);
                devices.forEach(Device::synchronize);
            }
            long psi = model.parameterCount();
            return new Row(
                    gpus,
                    stage,
                    trainer.memory().getFirst(),
                    stage.modelStateBytes(psi, gpus, config.optimizer().stateTensors()),
                    (first.stats().bytesToPeers() - sent) / TIMED_STEPS,
                    collectivesSec(stage, gpus, psi * Float.BYTES),
                    (timeline.now() - start) / TIMED_STEPS);
        } finally {
            devices.forEach(Device::close);
        }
    }

    /**
     * {@code config} at {@code stage}, the gradients summed as NCCL would: in stages 0 and 1 all-reduced by a ring in
     * DDP's buckets during the backward pass; stages 2 and 3 reduce-scatter such buckets.
     */
    private static TrainConfig asNccl(TrainConfig config, ZeroStage stage) {
        return config.withAllReduce(AllReduceAlgorithm.RING)
                .withBucketBytes(TrainConfig.DDP_BUCKET_BYTES)
                .withZero(stage);
    }

    /**
     * The collectives a step of {@code stage} runs over the {@code bytes} of float32 gradients or parameters: stage 0
     * all-reduces the gradients; stage 1 also all-gathers the updated parameters (as PyTorch's
     * ZeroRedundancyOptimizer beside DDP); stage 2 reduce-scatters the gradients instead; stage 3 all-gathers the
     * parameters before the forward and again before the backward pass.
     */
    static List<Collective> collectives(ZeroStage stage) {
        return switch (stage) {
            case NONE -> List.of(Collective.ALL_REDUCE);
            case OPTIMIZER -> List.of(Collective.ALL_REDUCE, Collective.ALL_GATHER);
            case GRADIENTS -> List.of(Collective.REDUCE_SCATTER, Collective.ALL_GATHER);
            case PARAMETERS -> List.of(Collective.ALL_GATHER, Collective.ALL_GATHER, Collective.REDUCE_SCATTER);
        };
    }

    /** {@link #collectives} of {@code bytes} on {@code gpus} A100s in one node, timed by the NCCL model. */
    private static double collectivesSec(ZeroStage stage, int gpus, long bytes) {
        if (gpus == 1) {
            return 0;
        }
        CollectiveCostModel.CostedSystem system =
                CollectiveCostModel.find().system(new CollectiveCostModel.SystemSpec(gpus, 1, PROFILE, null, null, 0));
        return collectives(stage).stream()
                .mapToDouble(c -> system.estimate(c, bytes, "auto").seconds())
                .sum();
    }

    private static void print(LessonContext ctx, Row r) {
        DeviceMemory m = r.memory();
        ctx.out()
                .printf(
                        Locale.ROOT,
                        "%4d %5d %9s %9s %9s | %11s %12s | %11s %9s | %9s | %14.2f ms | %7.2f ms%n",
                        r.gpus(),
                        r.stage().number(),
                        mb(m.parameters()),
                        mb(m.gradients()),
                        mb(m.optimizerState()),
                        mb(m.modelState()),
                        mb(r.zeroCount()),
                        mb(m.activations()),
                        mb(m.peak()),
                        mb(r.sentPerStep()),
                        r.collectivesSec() * 1e3,
                        r.stepSec() * 1e3);
    }

    private static String mb(long bytes) {
        return String.format(Locale.ROOT, "%.1f MB", bytes / 1e6);
    }

    /**
     * What the measurements say: every stage's update is stage 0's, bit for bit with the same ring; on 8 GPUs stage 3 holds about an
     * eighth of stage 0's model state and sends about 1.5 times its bytes; the small GPUs ran out of memory at
     * stage 0 only.
     */
    static Claim conclusion(Result r) {
        double worst =
                r.distances().stream().mapToDouble(Double::doubleValue).max().orElse(0);
        Claim same = new Claim(
                worst == 0,
                worst == 0
                        ? "every stage made stage 0's update bit for bit"
                        : "a stage's update differed from stage 0's by " + String.format(Locale.ROOT, "%.1e", worst));
        Row zero8 = find(r.rows(), 8, ZeroStage.NONE), three8 = find(r.rows(), 8, ZeroStage.PARAMETERS);
        Claim memory = Claim.ratioAbove(
                "on 8 GPUs, stage 0's model state per GPU over stage 3's",
                zero8.memory().modelState(),
                three8.memory().modelState(),
                7.9);
        Claim traffic = Claim.ratioAbove(
                "stage 3's bytes sent per step over stage 0's", three8.sentPerStep(), zero8.sentPerStep(), 1.4);
        List<Integer> fit =
                r.smallGpus().stream().map(row -> row.stage().number()).toList();
        List<Integer> outOfMemory = new ArrayList<>();
        for (ZeroStage stage : ZeroStage.values()) {
            if (!fit.contains(stage.number())) {
                outOfMemory.add(stage.number());
            }
        }
        boolean split = outOfMemory.contains(0) && fit.contains(3);
        boolean holds = same.holds() && memory.holds() && traffic.holds() && split;
        return new Claim(
                holds,
                same.text() + "; " + memory.text() + ", for " + traffic.text() + "; on " + SMALL_GPU_MB
                        + " MiB GPUs " + stages(outOfMemory) + " ran out of memory and " + stages(fit) + " fit"
                        + (split ? "" : ", where stage 0 should not and stage 3 should"));
    }

    /** {@code stage 3}, {@code stages 0, 1 and 2}, {@code no stage}. */
    private static String stages(List<Integer> numbers) {
        if (numbers.isEmpty()) {
            return "no stage";
        }
        if (numbers.size() == 1) {
            return "stage " + numbers.getFirst();
        }
        String all = numbers.stream().map(String::valueOf).collect(Collectors.joining(", "));
        int last = all.lastIndexOf(", ");
        return "stages " + all.substring(0, last) + " and " + all.substring(last + 2);
    }

    private static Row find(List<Row> rows, int gpus, ZeroStage stage) {
        return rows.stream()
                .filter(row -> row.gpus() == gpus && row.stage() == stage)
                .findFirst()
                .orElseThrow();
    }
}
