package org.multigpulab.lessons.lesson;

import java.util.ArrayList;
import java.util.List;
import org.multigpulab.core.train.TrainResult;
import org.multigpulab.lessons.plot.Curve;
import org.multigpulab.lessons.plot.LearningCurve;

/** The notebook's "Learning curve" cell: {@code train(num_gpus=1, batch_size=256, lr=0.2)}, then 2 GPUs. */
public final class TrainLesson implements Lesson {

    @Override
    public String name() {
        return "train";
    }

    @Override
    public String summary() {
        return "train(num_gpus=1, batch_size=256, lr=0.2), then on 2 GPUs: the same curve, another time";
    }

    /** The results on 1 and then k devices, drawn into one chart. */
    public List<TrainResult> compare(LessonContext ctx) {
        int k = ctx.gpusToCompare(2);
        int epochs = ctx.epochs(5);
        List<Curve> curves = new ArrayList<>();
        LearningCurve chart = new LearningCurve(
                "train(num_gpus, batch_size=" + ctx.batchSize() + ", lr=0.2)",
                ctx.plots(),
                "learning-curves",
                ctx.interactive(),
                curves);
        List<TrainResult> results = new ArrayList<>();
        for (int gpus : new int[] {1, k}) {
            Curve test = new Curve("test acc, " + gpus + " GPU" + (gpus > 1 ? "s" : ""));
            Curve train = new Curve("train acc, " + gpus + " GPU" + (gpus > 1 ? "s" : ""));
            curves.add(test);
            curves.add(train);
            TrainResult result =
                    ctx.train(gpus, LessonContext.recipe(epochs, ctx.batchSize(), 0.2f), chart.listener(test, train));
            ctx.out().println(LessonContext.summary(result));
            results.add(result);
        }
        return results;
    }

    /** The conclusion: 1 and k GPUs reach the same test accuracy, within the noise of the test set. */
    static Claim claim(List<TrainResult> r, int testImages) {
        double one = r.get(0).finalTestAcc(), k = r.get(1).finalTestAcc();
        String what = "test accuracy on " + r.get(0).devices().size() + " and "
                + r.get(1).devices().size() + " GPUs";
        return Claim.notLearned(what, one, k)
                .orElseGet(() -> Claim.same(what, one, k, Claim.accuracyNoise(one, testImages), 3)
                        .and(
                                ": the same global batches give the same model up to float rounding; data parallelism changes"
                                        + " where the arithmetic runs, not what it computes.",
                                ": more than the test set's noise. Float rounding alone gives that only while a run is still"
                                        + " leaving LeNet's initial plateau, whose end it moves by a few steps: train longer"
                                        + " (--epochs); if it stays, the runs compute different things."));
    }

    @Override
    public void run(LessonContext ctx) {
        report(ctx, compare(ctx));
    }

    /** The conclusion from the runs of {@link #compare}. */
    public void report(LessonContext ctx, List<TrainResult> r) {
        ctx.out()
                .println(claim(r, ctx.data().test().count()).notice() + " Plot: "
                        + ctx.plots().resolve("learning-curves.png"));
    }
}
