package org.multigpulab.lessons.lesson;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.multigpulab.core.autograd.Ops;
import org.multigpulab.core.autograd.Tape;
import org.multigpulab.core.autograd.Tensor;
import org.multigpulab.core.data.BatchIterator;
import org.multigpulab.core.data.FashionMnist;
import org.multigpulab.core.data.HostBatch;
import org.multigpulab.core.data.ImageShape;
import org.multigpulab.core.model.HostTensor;
import org.multigpulab.core.model.Mode;
import org.multigpulab.core.model.ResNet18;
import org.multigpulab.core.model.UpdateDistance;
import org.multigpulab.core.parallel.BatchNormStatistics;
import org.multigpulab.core.parallel.Replica;
import org.multigpulab.core.parallel.Scatter;
import org.multigpulab.core.train.DataParallelTrainer;
import org.multigpulab.core.train.TrainConfig;
import org.multigpulab.core.train.TrainResult;
import org.multigpulab.core.train.TrainingListener;
import org.multigpulab.device.Device;
import org.multigpulab.device.Timeline;
import org.multigpulab.lessons.errors.UserError;
import org.multigpulab.lessons.setup.DeviceSetup;

/**
 * d2l §12.6 exercise 2 with its ResNet-18: devices of unequal speed. Simulated GPUs of two kinds (a T4 and a V100
 * unless {@code --profile} names others), on a slice of the data: measure each one's images/s on the model's own
 * forward and backward pass, give each
 * a part of every batch in proportion, and train with that split and with the even one to compare their epochs.
 */
public final class ConciseExercise2Lesson implements Lesson {

    /**
     * How many times further apart the two splits' updates must be with each device's own BatchNorm statistics than
     * with synchronized ones, for the split to be said to change the statistics and not the sum.
     */
    static final double STATISTICS_NOT_SUM = 10;

    private static final int SAMPLED_STEPS = 5;
    /** §12.6's model. */
    private static final ResNet18 NET = new ResNet18();
    /** The slice trained by default. */
    static final int TRAIN_IMAGES = 1024, TEST_IMAGES = 512;

    /**
     * One way of splitting: the rows each device takes, the run's simulated seconds per epoch and test accuracy,
     * and one step's simulated seconds and each device's compute seconds in it.
     */
    public record Split(
            String name, int[] sizes, double simSecPerEpoch, double testAcc, double stepSec, double[] computeSec) {}

    /**
     * What the lesson measured: each device's images/s, the two splits, and how far their updates differ with local
     * and with synchronized BatchNorm.
     */
    public record Outcome(
            List<String> devices,
            double[] rates,
            Split even,
            Split proportional,
            double localUpdateDiff,
            double updateDiff) {}

    @Override
    public String name() {
        return "concise-exercise-2";
    }

    @Override
    public String summary() {
        return "unequal devices (T4 + V100): measure each one's images/s, split every batch in proportion";
    }

    /** The profiles timed: {@code --profile} if given, else a T4 and a V100 in turn. */
    static String profiles(DeviceSetup setup, int gpus) {
        if (setup.profile() != null) {
            return setup.profile();
        }
        List<String> names = new ArrayList<>();
        for (int i = 0; i < gpus; i++) {
            names.add(i % 2 == 0 ? "t4" : "v100");
        }
        return String.join(",", names);
    }

    public Outcome measure(LessonContext ctx) {
        if (!ctx.devices().backend().equals("sim")) {
            throw new UserError("this lesson times simulated GPUs of different kinds; run it with --backend sim (the"
                    + " default), not " + ctx.devices().backend());
        }
        int gpus = ctx.gpusToCompare(2);
        DeviceSetup setup = ctx.devices().withProfile(profiles(ctx.devices(), gpus));
        int batch = ctx.batchSize();
        FashionMnist.Splits data = ctx.data(TRAIN_IMAGES, TEST_IMAGES);
        HostBatch first = new BatchIterator(data.train(), batch).next();
        List<Device> devices = setup.open(gpus);
        double[] rates;
        double updateDiff, localUpdateDiff;
        List<String> names;
        try {
            names = devices.stream()
                    .map(d -> d.id() + " (" + d.info().description() + ")")
                    .toList();
            HostBatch probe = new BatchIterator(data.train(), Math.ceilDiv(batch, gpus)).next();
            rates = throughput(devices, probe);
            // with BatchNorm a split changes each device's statistics; synchronized ones are the whole batch's
            TrainConfig local = LessonContext.recipe(1, batch, 0.1f);
            localUpdateDiff = splitDistance(devices, local, rates, first);
            updateDiff = splitDistance(devices, local.withBatchNorm(BatchNormStatistics.SYNC), rates, first);
        } finally {
            devices.forEach(Device::close);
        }
        TrainConfig recipe = LessonContext.recipe(ctx.epochs(1), batch, 0.1f);
        Split even = train(ctx, setup, "even", recipe, Scatter.shardSizes(batch, gpus));
        Split proportional =
                train(ctx, setup, "in proportion", recipe.withShares(rates), Scatter.shardSizes(batch, rates));
        return new Outcome(names, rates, even, proportional, localUpdateDiff, updateDiff);
    }

    /** How far one step's update split in proportion to {@code rates} lands from the even split's. */
    private static double splitDistance(List<Device> devices, TrainConfig step, double[] rates, HostBatch batch) {
        List<HostTensor> start = NET.initialState(1);
        return UpdateDistance.of(
                        NET, start, oneStep(devices, step, batch), oneStep(devices, step.withShares(rates), batch))
                .worst()
                .relative();
    }

    /**
     * Each device's images per second on one forward and backward pass of {@code probe}, in simulated time: the
     * seconds its kernels ran on the device's own profile.
     */
    static double[] throughput(List<Device> devices, HostBatch probe) {
        Timeline timeline = devices.getFirst().timeline().orElseThrow();
        double[] rates = new double[devices.size()];
        for (int d = 0; d < devices.size(); d++) {
            List<HostTensor> state = NET.initialState(0);
            int params = NET.parameters().size();
            try (Replica replica =
                    Replica.getState(state.subList(0, params), state.subList(params, state.size()), devices.get(d))) {
                double before = timeline.devices().get(d).computeSec();
                pass(replica, probe);
                rates[d] = probe.size() / (timeline.devices().get(d).computeSec() - before);
            }
        }
        return rates;
    }

    private static void pass(Replica replica, HostBatch probe) {
        Device device = replica.device();
        try (Tape tape = Tape.training(replica.workspace())) {
            ImageShape image = NET.input();
            Tensor x = tape.newTensor(false, probe.size(), image.channels(), image.height(), image.width());
            Tensor y = tape.newTensor(false, probe.size());
            device.upload(probe.x(), 0, x.data());
            device.upload(probe.y(), 0, y.data());
            Tensor logits = NET.forward(tape, x, replica.params(), replica.buffers(), Mode.TRAIN);
            tape.backward(Ops.crossEntropySum(tape, logits, y));
        }
        device.synchronize();
    }

    /** The state after one step on {@code batch} from the lessons' start, split as {@code config} says. */
    private static List<HostTensor> oneStep(List<Device> devices, TrainConfig config, HostBatch batch) {
        try (DataParallelTrainer trainer = new DataParallelTrainer(devices, NET, NET.initialState(1), config)) {
            trainer.trainBatch(batch, config.lr(), 1);
            return trainer.state();
        }
    }

    private static Split train(LessonContext ctx, DeviceSetup setup, String name, TrainConfig config, int[] sizes) {
        double[] step = new double[1];
        double[][] compute = new double[1][];
        TrainResult r = ctx.train(NET, setup, sizes.length, config, new TrainingListener() {}, trainer -> {
            Timeline timeline = trainer.timeline().orElseThrow();
            double[] before = computeSec(timeline);
            double start = timeline.now();
            BatchIterator batches =
                    new BatchIterator(ctx.data(TRAIN_IMAGES, TEST_IMAGES).train(), config.batchSize());
            for (int i = 0; i < SAMPLED_STEPS && batches.hasNext(); i++) {
                trainer.trainBatch(batches.next(), 0f, config.epochs() + 1); // lr 0: timed, the model unchanged
                trainer.devices().forEach(Device::synchronize);
            }
            step[0] = (timeline.now() - start) / SAMPLED_STEPS;
            double[] after = computeSec(timeline);
            compute[0] = new double[after.length];
            for (int d = 0; d < after.length; d++) {
                compute[0][d] = (after[d] - before[d]) / SAMPLED_STEPS;
            }
        });
        return new Split(name, sizes, r.simulatedSecPerEpoch(), r.finalTestAcc(), step[0], compute[0]);
    }

    private static double[] computeSec(Timeline timeline) {
        return timeline.devices().stream()
                .mapToDouble(Timeline.DeviceTime::computeSec)
                .toArray();
    }

    /** The conclusion: the proportional split's simulated epoch is shorter than the even split's. */
    static Claim claim(Outcome o) {
        return Claim.ratioAbove(
                        "simulated sec/epoch, even split over proportional",
                        o.even().simSecPerEpoch(),
                        o.proportional().simSecPerEpoch(),
                        1)
                .and(
                        ": a step lasts as long as its slowest device, and in proportion the fast one no longer waits.",
                        ": no shorter; the devices are too alike, or launches, not rows, set each one's time.");
    }

    /**
     * With synchronized BatchNorm the update is the same however the batch is split (the statistics and the gradient
     * are the whole batch's), up to float rounding; with each device's own statistics it is not.
     */
    static Claim sameUpdate(Outcome o) {
        return Claim.ratioAbove(
                        "one step's update, even split vs in proportion, farthest apart with each GPU's own BatchNorm"
                                + " statistics over with synchronized ones",
                        o.localUpdateDiff(),
                        o.updateDiff(),
                        STATISTICS_NOT_SUM)
                .and(
                        ": the split changes each GPU's statistics (nn.DataParallel's), not the gradient's sum, which"
                                + " is the whole batch's whichever device adds which rows.",
                        ": the split moves the update by more than its statistics should.");
    }

    @Override
    public void run(LessonContext ctx) {
        report(ctx, measure(ctx));
    }

    public void report(LessonContext ctx, Outcome o) {
        List<String> shown = new ArrayList<>();
        for (int i = 0; i < o.rates().length; i++) {
            shown.add(String.format(Locale.ROOT, "%s %.0f", o.devices().get(i), o.rates()[i]));
        }
        ctx.out().println("measured (forward + backward, simulated images/s): " + String.join(", ", shown));
        for (Split s : List.of(o.even(), o.proportional())) {
            List<String> compute = Arrays.stream(s.computeSec())
                    .mapToObj(c -> TrainResult.seconds(c * 1e3))
                    .toList();
            ctx.out()
                    .printf(
                            Locale.ROOT,
                            "%-13s %s: %s sec/epoch simulated, test acc %.3f; a step %s ms, the devices computing %s"
                                    + " ms%n",
                            s.name(),
                            Arrays.toString(s.sizes()),
                            TrainResult.seconds(s.simSecPerEpoch()),
                            s.testAcc(),
                            TrainResult.seconds(s.stepSec() * 1e3),
                            compute);
        }
        ctx.out().println(sameUpdate(o).text());
        ctx.out().println(claim(o).notice());
    }
}
