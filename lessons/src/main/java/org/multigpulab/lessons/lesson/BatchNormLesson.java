package org.multigpulab.lessons.lesson;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.multigpulab.core.data.BatchIterator;
import org.multigpulab.core.data.FashionMnist;
import org.multigpulab.core.data.HostBatch;
import org.multigpulab.core.model.HostTensor;
import org.multigpulab.core.model.ResNet18;
import org.multigpulab.core.model.UpdateDistance;
import org.multigpulab.core.parallel.BatchNormStatistics;
import org.multigpulab.core.train.DataParallelTrainer;
import org.multigpulab.core.train.TrainConfig;
import org.multigpulab.device.Device;

/**
 * BatchNorm over several GPUs, with d2l's ResNet-18: each device normalising with its own shard's statistics
 * ({@code nn.DataParallel}, DDP) against the whole batch's ({@code nn.SyncBatchNorm}), one step from one start; what
 * fewer images per device do to the local statistics; and an experiment on the book's erratic two-GPU accuracy (§12.6
 * printed 0.34 to 0.90 over its builds): the book's cell order, whose second {@code init_weights} re-draws only the
 * weights, against a fresh start, with local and with synchronized statistics, over several random seeds.
 */
public final class BatchNormLesson implements Lesson {

    /** The global batch of the one-step comparisons, and the GPUs that split it. */
    static final int STEP_BATCH = 64;

    static final int[] STEP_GPUS = {2, 4, 8};
    /** The experiment's default size: seeds, slice and epochs (hours at the book's size on 2 cores). */
    static final int SEEDS = 2, TRAIN_IMAGES = 1024, TEST_IMAGES = 512, EPOCHS = 1;

    @Override
    public String name() {
        return "batchnorm";
    }

    @Override
    public String summary() {
        return "BatchNorm on several GPUs: local vs synchronized statistics, images per GPU, and the book's erratic"
                + " 2-GPU accuracy over seeds";
    }

    /** How far one step on {@code gpus} moves ResNet-18 from where one GPU's step on the same batch does. */
    record StepDistance(int gpus, int imagesPerGpu, UpdateDistance local, UpdateDistance sync) {}

    static List<StepDistance> stepDistances(LessonContext ctx, HostBatch batch, int[] gpus) {
        ResNet18 net = new ResNet18();
        List<HostTensor> start = net.initialState(1);
        List<HostTensor> one = oneStep(ctx, net, start, 1, BatchNormStatistics.LOCAL, batch);
        List<StepDistance> rows = new ArrayList<>();
        for (int k : gpus) {
            rows.add(new StepDistance(
                    k,
                    (batch.size() + k - 1) / k,
                    UpdateDistance.of(net, start, oneStep(ctx, net, start, k, BatchNormStatistics.LOCAL, batch), one),
                    UpdateDistance.of(net, start, oneStep(ctx, net, start, k, BatchNormStatistics.SYNC, batch), one)));
        }
        return rows;
    }

    private static List<HostTensor> oneStep(
            LessonContext ctx,
            ResNet18 net,
            List<HostTensor> start,
            int gpus,
            BatchNormStatistics statistics,
            HostBatch batch) {
        TrainConfig config = TrainConfig.notebook().withBatchNorm(statistics);
        List<Device> devices = ctx.open(gpus);
        try (DataParallelTrainer t = new DataParallelTrainer(devices, net, start, config)) {
            t.trainBatch(batch, 0.1f, 1);
            return t.state();
        } finally {
            devices.forEach(Device::close);
        }
    }

    /** One seed of the experiment: the 1-GPU run, then the 2-GPU run each way. */
    record SeedRuns(long seed, double[] oneGpu, double[] bookOrderLocal, double[] freshLocal, double[] bookOrderSync) {}

    static SeedRuns experiment(LessonContext ctx, FashionMnist.Splits data, long seed, int epochs, int batch) {
        ResNet18 net = new ResNet18();
        ctx.out().printf("seed %d: train(net, num_gpus=1, batch_size=%d, lr=0.1)%n", seed, batch);
        ConciseLesson.Run one = ConciseLesson.train(
                ctx, data, net, net.initialState(seed), 1, epochs, batch, 0.1f, BatchNormStatistics.LOCAL);
        List<HostTensor> bookOrder = net.initWeights(one.state(), seed + 1000);
        ctx.out().printf("seed %d: train(net, num_gpus=2, batch_size=%d, lr=0.2), the book's order%n", seed, 2 * batch);
        double[] bookLocal = ConciseLesson.train(
                        ctx, data, net, bookOrder, 2, epochs, 2 * batch, 0.2f, BatchNormStatistics.LOCAL)
                .testAcc();
        ctx.out().printf("seed %d: the same from a fresh net%n", seed);
        double[] fresh = ConciseLesson.train(
                        ctx,
                        data,
                        net,
                        net.initialState(seed + 2000),
                        2,
                        epochs,
                        2 * batch,
                        0.2f,
                        BatchNormStatistics.LOCAL)
                .testAcc();
        ctx.out().printf("seed %d: the book's order with synchronized BatchNorm%n", seed);
        double[] bookSync = ConciseLesson.train(
                        ctx, data, net, bookOrder, 2, epochs, 2 * batch, 0.2f, BatchNormStatistics.SYNC)
                .testAcc();
        return new SeedRuns(seed, one.testAcc(), bookLocal, fresh, bookSync);
    }

    @Override
    public void run(LessonContext ctx) {
        int most = Arrays.stream(STEP_GPUS).max().orElseThrow();
        ctx.needs(most);
        FashionMnist.Splits data = ctx.data(TRAIN_IMAGES, TEST_IMAGES);
        HostBatch batch = new BatchIterator(data.train(), STEP_BATCH).next();
        ctx.out()
                .printf(
                        "One step of ResNet-18 (lr 0.1) on the first %d training images, split over GPUs; its update"
                                + " against one GPU's over all of them (‖Δ − Δ₁‖ / ‖Δ₁‖, the worst tensor):%n",
                        batch.size());
        List<StepDistance> steps = stepDistances(ctx, batch, STEP_GPUS);
        ctx.out().println("  GPUs  images/GPU  local BatchNorm           sync BatchNorm");
        for (StepDistance d : steps) {
            ctx.out()
                    .printf(
                            Locale.ROOT,
                            "  %4d  %10d  %-24s  %s%n",
                            d.gpus(),
                            d.imagesPerGpu(),
                            d.local().worst(),
                            d.sync().worst());
        }

        int seeds = ctx.seeds(SEEDS), epochs = ctx.epochs(EPOCHS), perGpu = ctx.batchSize();
        ctx.out()
                .printf(
                        "%nThe book's two-GPU accuracy: %d seed%s, %d epoch%s, %,d training and %,d test images"
                                + " (--seeds, --epochs, --train-samples, --test-samples; the book: 10 epochs on all)%n",
                        seeds,
                        seeds == 1 ? "" : "s",
                        epochs,
                        epochs == 1 ? "" : "s",
                        data.train().count(),
                        data.test().count());
        List<SeedRuns> runs = new ArrayList<>();
        for (long seed = 1; seed <= seeds; seed++) {
            runs.add(experiment(ctx, data, seed, epochs, perGpu));
        }
        ctx.out().println("  test accuracy after each epoch:");
        ctx.out().println("  seed  1 GPU      2 GPUs, book's order  2 GPUs, fresh      2 GPUs, book's order, sync");
        for (SeedRuns r : runs) {
            ctx.out()
                    .printf(
                            "  %4d  %-9s  %-20s  %-17s  %s%n",
                            r.seed(),
                            accuracies(r.oneGpu()),
                            accuracies(r.bookOrderLocal()),
                            accuracies(r.freshLocal()),
                            accuracies(r.bookOrderSync()));
        }
        for (Claim c : claims(steps, runs, data.test().count())) {
            ctx.out().println(c.notice());
        }
    }

    private static String accuracies(double[] acc) {
        return Arrays.stream(acc)
                .mapToObj(a -> String.format(Locale.ROOT, "%.2f", a))
                .collect(Collectors.joining(" "));
    }

    /** The conclusions, each from the figures printed above it. */
    static List<Claim> claims(List<StepDistance> steps, List<SeedRuns> runs, int testImages) {
        List<Claim> claims = new ArrayList<>();
        double worstSync = steps.stream()
                .mapToDouble(d -> d.sync().worst().relative())
                .max()
                .orElseThrow();
        double leastLocal = steps.stream()
                .mapToDouble(d -> d.local().worst().relative())
                .min()
                .orElseThrow();
        claims.add(Claim.ratioAbove(
                        "one GPU's step against several GPUs', local statistics' least distance over sync's worst",
                        leastLocal,
                        worstSync,
                        10)
                .and(
                        ": synchronized BatchNorm takes one GPU's step up to float rounding (which a step of BatchNorm"
                                + " after N(0, 0.01²) weights magnifies), local statistics change it, each GPU"
                                + " normalising with its own shard's mean and variance.",
                        ": the two are not told apart by this step."));
        boolean growing = true;
        for (int i = 1; i < steps.size(); i++) {
            growing &= steps.get(i).local().worst().relative()
                    > steps.get(i - 1).local().worst().relative();
        }
        claims.add(new Claim(
                growing,
                "with fewer images per GPU ("
                        + steps.stream()
                                .map(d -> Integer.toString(d.imagesPerGpu()))
                                .collect(Collectors.joining(", "))
                        + ") the local statistics stray further from the batch's: "
                        + steps.stream()
                                .map(d -> String.format(
                                        Locale.ROOT, "%.2g", d.local().worst().relative()))
                                .collect(Collectors.joining(", "))
                        + (growing ? ", growing." : ", not growing steadily.")));
        double[] book = finals(runs, SeedRuns::bookOrderLocal), fresh = finals(runs, SeedRuns::freshLocal);
        double[] sync = finals(runs, SeedRuns::bookOrderSync), one = finals(runs, SeedRuns::oneGpu);
        double best = Arrays.stream(new double[][] {book, fresh, sync})
                .flatMapToDouble(Arrays::stream)
                .max()
                .orElseThrow();
        Optional<Claim> plateau = Claim.notLearned("the 2-GPU accuracies over seeds", mean(one), best);
        if (plateau.isPresent()) {
            claims.add(plateau.orElseThrow());
            return claims;
        }
        double noise = Claim.accuracyNoise(mean(one), testImages);
        String widest = spread(book) >= Math.max(spread(fresh), spread(sync))
                ? "the book's order"
                : spread(fresh) >= spread(sync) ? "a fresh net" : "sync BatchNorm";
        claims.add(new Claim(
                spread(book) > noise,
                String.format(
                        Locale.ROOT,
                        "over %d seeds the final 2-GPU accuracy in the book's order spans %.2f (%s), from a fresh net"
                                + " %.2f (%s), with sync BatchNorm %.2f (%s); 1 GPU %.2f; what the test images alone"
                                + " move it: %.2f. The widest: %s.",
                        runs.size(),
                        spread(book),
                        accuracies(book),
                        spread(fresh),
                        accuracies(fresh),
                        spread(sync),
                        accuracies(sync),
                        spread(one),
                        noise,
                        widest)));
        return claims;
    }

    private static double[] finals(List<SeedRuns> runs, Function<SeedRuns, double[]> run) {
        return runs.stream()
                .mapToDouble(r -> run.apply(r)[run.apply(r).length - 1])
                .toArray();
    }

    private static double spread(double[] values) {
        return Arrays.stream(values).max().orElseThrow()
                - Arrays.stream(values).min().orElseThrow();
    }

    private static double mean(double[] values) {
        return Arrays.stream(values).average().orElseThrow();
    }
}
