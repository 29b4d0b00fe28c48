package org.multigpulab.lessons.lesson;

import java.util.List;
import java.util.Locale;
import org.multigpulab.core.data.Dataset;
import org.multigpulab.core.data.FashionMnist;
import org.multigpulab.core.model.HostTensor;
import org.multigpulab.core.model.Mlp;
import org.multigpulab.core.model.UpdateDistance;
import org.multigpulab.core.train.DataParallelTrainer;
import org.multigpulab.core.train.TrainConfig;
import org.multigpulab.core.train.TrainingListener;
import org.multigpulab.device.Device;
import org.multigpulab.lessons.errors.UserError;

/**
 * Gradient accumulation with DDP's {@code no_sync}: K micro-batches per optimizer step, the gradients adding up on
 * each GPU and summed over the GPUs only after the last. The update is that of one batch K times larger, and the
 * GPUs exchange K times fewer bytes than they would stepping after every micro-batch.
 */
public final class AccumulationLesson implements Lesson {

    static final int K = 4;
    private static final float LR = 0.2f;
    /**
     * Optimizer steps per run: few enough that float rounding, which training amplifies step by step (the runs add
     * the same gradients in another order), stays rounding (measured: 3e-7 after 4 to 32 steps, 3e-2 after 200).
     */
    static final int STEPS = 16;

    /** One epoch's run: its parameters, the bytes the GPUs received from each other, and its optimizer steps. */
    public record Run(String what, List<HostTensor> params, long peerBytes, int steps) {}

    /** The three runs, and the distance of the accumulated update to the large batch's. */
    public record Result(Run accumulated, Run large, Run small, double distance) {}

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
        double distance = UpdateDistance.of(init, accumulated.params(), large.params())
                .worst()
                .relative();
        ctx.out()
                .printf(
                        Locale.ROOT,
                        "The accumulated update's distance to the large batch's: %.1e (relative, the worst tensor)%n",
                        distance);
        return new Result(accumulated, large, small, distance);
    }

    private static Run train(
            LessonContext ctx,
            FashionMnist.Splits data,
            int gpus,
            Mlp mlp,
            List<HostTensor> init,
            TrainConfig config,
            String what) {
        List<Device> devices = ctx.open(gpus);
        int[] steps = {0};
        try (DataParallelTrainer trainer = new DataParallelTrainer(devices, mlp, init, config)) {
            trainer.train(data, new TrainingListener() {
                @Override
                public void onBatch(BatchDone b) {
                    steps[0]++;
                }
            });
            long bytes =
                    devices.stream().mapToLong(d -> d.stats().bytesFromPeers()).sum();
            Run run = new Run(what, trainer.parameters(), bytes, steps[0]);
            ctx.out()
                    .printf(
                            Locale.ROOT,
                            "  %-28s %4d optimizer steps, %8.1f MB between the GPUs%n",
                            what + ":",
                            run.steps(),
                            bytes / 1e6);
            return run;
        } finally {
            devices.forEach(Device::close);
        }
    }

    /**
     * What the runs say: the accumulated update is the large batch's within 1e-5, and the GPUs exchanged more than
     * K − 0.5 times fewer bytes than stepping after every micro-batch (an epoch's last step may have fewer).
     */
    static Claim conclusion(Result r) {
        Claim same = Claim.below(
                K + " micro-batches make the update of one batch " + K + " times larger: distance", r.distance(), 1e-5);
        Claim fewer = Claim.ratioAbove(
                "the GPUs exchange fewer bytes than stepping after every micro-batch",
                r.small().peerBytes(),
                r.accumulated().peerBytes(),
                K - 0.5);
        return new Claim(same.holds() && fewer.holds(), same.text() + ";\n        " + fewer.text());
    }
}
