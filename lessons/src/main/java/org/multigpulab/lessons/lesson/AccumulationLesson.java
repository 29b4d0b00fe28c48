package org.multigpulab.lessons.lesson;

import java.util.List;
import java.util.Locale;
import org.multigpulab.core.data.Dataset;
import org.multigpulab.core.data.FashionMnist;
import org.multigpulab.core.model.HostTensor;
import org.multigpulab.core.model.Mlp;
import org.multigpulab.core.model.Model;
import org.multigpulab.core.model.ResNet18;
import org.multigpulab.core.model.UpdateDistance;
import org.multigpulab.core.train.DataParallelTrainer;
import org.multigpulab.core.train.TrainConfig;
import org.multigpulab.core.train.TrainingListener;
import org.multigpulab.device.Device;
import org.multigpulab.lessons.errors.UserError;

/**
 * Gradient accumulation with DDP's {@code no_sync}: K micro-batches per optimizer step, the gradients adding up on
 * each GPU and summed over the GPUs only after the last. The update is that of one batch K times larger, and the
 * GPUs exchange K times fewer bytes than they would stepping after every micro-batch. Not with BatchNorm: each
 * micro-batch is normalised with its own statistics, so one step of ResNet-18 accumulated lands elsewhere than the
 * large batch's.
 */
public final class AccumulationLesson implements Lesson {

    static final int K = 4;
    private static final float LR = 0.2f;
    /**
     * Optimizer steps per run: few enough that float rounding, which training amplifies step by step (the runs add
     * the same gradients in another order), stays rounding (measured: 3e-7 after 4 to 32 steps, 3e-2 after 200).
     */
    static final int STEPS = 16;

    /** One run: its state (parameters and buffers), the bytes the GPUs received from each other, its optimizer steps. */
    public record Run(String what, List<HostTensor> state, long peerBytes, int steps) {}

    /**
     * The three runs, the distance of the accumulated update to the large batch's, and the same distance for one
     * step of a ResNet-18 with BatchNorm (the median tensor's: its conv biases ahead of a BatchNorm are noise).
     */
    public record Result(Run accumulated, Run large, Run small, double distance, double batchNormDistance) {}

    /** The ResNet-18 of the BatchNorm step, narrowed so that the step takes a moment on a processor. */
    private static final ResNet18 NARROW = ResNet18.withWidths(4, 8, 8, 16);

    @Override
    public String name() {
        return "accumulation";
    }

    @Override
    public String summary() {
        return "gradient accumulation with no_sync: K micro-batches make one large batch's update, K times fewer bytes";
    }

    @Override
    public void run(LessonContext ctx) {
        ctx.out().println(conclusion(measure(ctx)).notice());
    }

    public Result measure(LessonContext ctx) {
        int gpus = ctx.gpus(2);
        int micro = ctx.batchSize() / K;
        if (micro < gpus) {
            throw new UserError("--batch-size " + ctx.batchSize() + " makes micro-batches of " + micro
                    + ", fewer images than GPUs: give at least " + K * gpus);
        }
        Mlp mlp = new Mlp();
        List<HostTensor> init = mlp.initialState(1);
        Dataset train = ctx.data().train();
        FashionMnist.Splits data = new FashionMnist.Splits(
                train.first(Math.min(train.count(), STEPS * K * micro)),
                ctx.data().test());
        ctx.out()
                .printf(
                        Locale.ROOT,
                        "d2l's MLP, plain SGD (lr %s), an epoch of the first %d images on %d GPUs, from the same"
                                + " start:%n",
                        LR,
                        data.train().count(),
                        gpus);
        Run accumulated = train(
                ctx,
                data,
                gpus,
                mlp,
                init,
                LessonContext.recipe(1, micro, LR).withAccumulate(K),
                K + " micro-batches of " + micro + " a step");
        Run large =
                train(ctx, data, gpus, mlp, init, LessonContext.recipe(1, K * micro, LR), "one batch of " + K * micro);
        Run small = train(ctx, data, gpus, mlp, init, LessonContext.recipe(1, micro, LR), "one batch of " + micro);
        double distance = UpdateDistance.of(init, accumulated.state(), large.state())
                .worst()
                .relative();
        ctx.out()
                .printf(
                        Locale.ROOT,
                        "The accumulated update's distance to the large batch's: %.1e (relative, the worst tensor)%n",
                        distance);
        FashionMnist.Splits oneStep = new FashionMnist.Splits(
                train.first(Math.min(train.count(), K * micro)), ctx.data().test());
        List<HostTensor> start = NARROW.initialState(1);
        ctx.out()
                .printf(
                        Locale.ROOT,
                        "d2l's ResNet-18 with BatchNorm (narrowed to %s channels), one step on the first %d images:%n",
                        "4, 8, 8, 16",
                        oneStep.train().count());
        Run bnAccumulated = train(
                ctx,
                oneStep,
                gpus,
                NARROW,
                start,
                LessonContext.recipe(1, micro, LR).withAccumulate(K),
                K + " micro-batches of " + micro);
        Run bnLarge = train(
                ctx, oneStep, gpus, NARROW, start, LessonContext.recipe(1, K * micro, LR), "one batch of " + K * micro);
        double batchNormDistance = UpdateDistance.of(NARROW, start, bnAccumulated.state(), bnLarge.state())
                .median();
        ctx.out()
                .printf(
                        Locale.ROOT,
                        "The accumulated update's distance to the large batch's: %.1e (relative, the median tensor)%n",
                        batchNormDistance);
        return new Result(accumulated, large, small, distance, batchNormDistance);
    }

    private static Run train(
            LessonContext ctx,
            FashionMnist.Splits data,
            int gpus,
            Model model,
            List<HostTensor> init,
            TrainConfig config,
            String what) {
        List<Device> devices = ctx.open(gpus);
        int[] steps = {0};
        try (DataParallelTrainer trainer = new DataParallelTrainer(devices, model, init, config)) {
            trainer.train(data, new TrainingListener() {
                @Override
                public void onBatch(BatchDone b) {
                    steps[0]++;
                }
            });
            long bytes =
                    devices.stream().mapToLong(d -> d.stats().bytesFromPeers()).sum();
            Run run = new Run(what, trainer.state(), bytes, steps[0]);
            ctx.out()
                    .printf(
                            Locale.ROOT,
                            "  %-28s %4d optimizer step%s, %8.1f MB between the GPUs%n",
                            what + ":",
                            run.steps(),
                            run.steps() == 1 ? "" : "s",
                            bytes / 1e6);
            return run;
        } finally {
            devices.forEach(Device::close);
        }
    }

    /**
     * What the runs say: the accumulated update is the large batch's within 1e-5, and the GPUs exchanged more than
     * K − 0.5 times fewer bytes than stepping after every micro-batch (an epoch's last step may have fewer); with
     * BatchNorm the accumulated step lands more than a hundred times further from the large batch's than rounding
     * took the MLP's.
     */
    static Claim conclusion(Result r) {
        Claim same = Claim.below(
                K + " micro-batches make the update of one batch " + K + " times larger: distance", r.distance(), 1e-5);
        Claim fewer = Claim.ratioAbove(
                "the GPUs exchange fewer bytes than stepping after every micro-batch",
                r.small().peerBytes(),
                r.accumulated().peerBytes(),
                K - 0.5);
        Claim batchNorm = Claim.ratioAbove(
                        "with BatchNorm, the accumulated step's distance to the large batch's over the MLP's",
                        r.batchNormDistance(),
                        Math.max(r.distance(), 1e-9),
                        100)
                .and(
                        ": each micro-batch is normalised with its own mean and variance, not the large batch's, so"
                                + " accumulating changes BatchNorm's update (and its running statistics).",
                        ": BatchNorm's micro-batches did not move the update here.");
        return new Claim(
                same.holds() && fewer.holds() && batchNorm.holds(),
                same.text() + ";\n        " + fewer.text() + ";\n        " + batchNorm.text());
    }
}
