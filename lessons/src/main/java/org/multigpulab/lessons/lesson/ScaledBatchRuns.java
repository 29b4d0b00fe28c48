package org.multigpulab.lessons.lesson;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.IntFunction;
import org.multigpulab.core.data.BatchIterator;
import org.multigpulab.core.model.LeNet;
import org.multigpulab.core.model.Model;
import org.multigpulab.core.train.TrainResult;
import org.multigpulab.lessons.plot.ChartFiles;
import org.multigpulab.lessons.plot.Charts;
import org.multigpulab.lessons.plot.Curve;
import org.multigpulab.lessons.plot.LearningCurve;

/**
 * Training on k = 1, 2, 4 GPUs with a global batch of k·b and a learning rate chosen for each k, with its learning
 * curves ({@code NAME-accuracy}) and sec/epoch bars ({@code NAME-sec-per-epoch}): what d2l's §12.5 exercise 1 (lr
 * kept) and §12.6 exercise 1 (lr scaled with k) both run.
 */
final class ScaledBatchRuns {

    /**
     * One configuration's outcome; {@code secPerEpoch} leaves out the run's first epoch where it has more than one,
     * as the first run's first epoch is the JVM's and pays for the JIT.
     */
    record Row(int gpus, int batchSize, float lr, int epochs, int stepsPerEpoch, double testAcc, double secPerEpoch) {}

    private static final int[] GPUS = {1, 2, 4};

    private ScaledBatchRuns() {}

    /** The runs, each printed as it ends; {@code lr} gives the learning rate for k GPUs, {@code lrText} names it. */
    static List<Row> run(LessonContext ctx, String name, IntFunction<Float> lr, String lrText) {
        return run(ctx, name, lr, lrText, new LeNet(), 3);
    }

    /** {@link #run(LessonContext, String, IntFunction, String)} of {@code model}, {@code epochs} epochs by default. */
    static List<Row> run(
            LessonContext ctx, String name, IntFunction<Float> lr, String lrText, Model model, int epochs) {
        ctx.needs(GPUS[GPUS.length - 1]);
        int base = ctx.batchSize();
        int runEpochs = ctx.epochs(epochs);
        List<Curve> curves = new ArrayList<>();
        LearningCurve chart = new LearningCurve(
                "batch k*" + base + " on k GPUs, " + lrText,
                ctx.plots(),
                name + "-accuracy",
                ctx.interactive(),
                curves);
        Curve time = new Curve("wall sec/epoch");
        List<Row> rows = new ArrayList<>();
        for (int k : GPUS) {
            Curve test = new Curve("test acc, k=" + k), train = new Curve("train acc, k=" + k);
            curves.add(test);
            curves.add(train);
            TrainResult r = ctx.train(
                    model,
                    ctx.devices(),
                    k,
                    LessonContext.recipe(runEpochs, k * base, lr.apply(k)),
                    chart.listener(test, train),
                    trainer -> {});
            int steps = BatchIterator.batchesPerEpoch(ctx.data().train().count(), k * base);
            rows.add(new Row(k, k * base, lr.apply(k), runEpochs, steps, r.finalTestAcc(), r.secPerLaterEpoch()));
            time.add(k, r.secPerLaterEpoch());
            ctx.out()
                    .printf(
                            "k=%d, batch %d, lr %.1f: %d steps/epoch; %s%n",
                            k, k * base, lr.apply(k), steps, LessonContext.summary(r));
        }
        ChartFiles.save(
                Charts.bars(
                        "sec/epoch against GPUs (batch k*" + base + ", " + lrText + ")",
                        "GPUs",
                        runEpochs > 1 ? "wall seconds per epoch, after the first" : "wall seconds per epoch",
                        List.of(time)),
                ctx.plots(),
                name + "-sec-per-epoch");
        return rows;
    }

    /**
     * Whether k = 4 reaches k = 1's test accuracy, within the noise of {@code testImages} test images
     * ({@link Claim#accuracyNoise}).
     */
    static Claim sameAccuracy(List<Row> rows, int testImages) {
        Row first = rows.getFirst(), last = rows.getLast();
        return Claim.same(
                accuracies(rows), first.testAcc(), last.testAcc(), Claim.accuracyNoise(first.testAcc(), testImages), 3);
    }

    /** What {@link #sameAccuracy} compares. */
    static String accuracies(List<Row> rows) {
        return "test accuracy at k=" + rows.getFirst().gpus() + " and k="
                + rows.getLast().gpus();
    }

    /** {@link Claim#notLearned} of the first and last runs' test accuracies. */
    static Optional<Claim> notLearned(List<Row> rows) {
        return Claim.notLearned(
                accuracies(rows), rows.getFirst().testAcc(), rows.getLast().testAcc());
    }
}
