package org.multigpulab.lessons.lesson;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.multigpulab.core.train.TrainResult;
import org.multigpulab.lessons.plot.Curve;
import org.multigpulab.lessons.plot.LearningCurve;

/** d2l §12.5 exercise 2: how should the learning rate change with the number of GPUs (and the batch)? */
public final class Exercise2Lesson implements Lesson {

    /** Test accuracy for one learning rate. */
    public record Row(float lr, double testAcc) {}

    @Override
    public String name() {
        return "exercise-2";
    }

    @Override
    public String summary() {
        return "learning rate against GPUs: batch k*256 on k GPUs with lr 0.2, 0.2*sqrt(k) and 0.2*k";
    }

    public List<Row> rows(LessonContext ctx) {
        int k = ctx.gpusToCompare(2);
        int epochs = ctx.epochs(5);
        List<Curve> curves = new ArrayList<>();
        LearningCurve chart = new LearningCurve(
                "batch " + ctx.batchSize() * k + " on " + k + " GPUs: learning rate",
                ctx.plots(),
                "exercise-2",
                ctx.interactive(),
                curves);
        List<Row> rows = new ArrayList<>();
        // unchanged, the square-root rule, the linear rule
        for (float lr : new float[] {0.2f, (float) (0.2 * Math.sqrt(k)), 0.2f * k}) {
            Curve test = new Curve("test acc, lr " + lr), train = new Curve("train acc, lr " + lr);
            curves.add(test);
            curves.add(train);
            TrainResult r =
                    ctx.train(k, LessonContext.recipe(epochs, ctx.batchSize() * k, lr), chart.listener(test, train));
            rows.add(new Row(lr, r.finalTestAcc()));
            ctx.out().printf("lr %.2f: %s%n", lr, LessonContext.summary(r));
        }
        return rows;
    }

    /**
     * The conclusion: whether a learning rate scaled with k (the better of √k and k) beat the unchanged one by
     * more than the noise of the test set.
     */
    static Claim claim(List<Row> rows, int testImages) {
        Row unchanged = rows.getFirst();
        Row scaled = rows.subList(1, rows.size()).stream()
                .max(Comparator.comparingDouble(Row::testAcc))
                .orElseThrow();
        String what = String.format(Locale.ROOT, "test accuracy at lr %.2f and %.2f", unchanged.lr(), scaled.lr());
        Optional<Claim> notLearned = Claim.notLearned(what, unchanged.testAcc(), scaled.testAcc());
        if (notLearned.isPresent()) {
            return notLearned.get();
        }
        Claim same = Claim.same(
                what, unchanged.testAcc(), scaled.testAcc(), Claim.accuracyNoise(unchanged.testAcc(), testImages), 3);
        return same.and(
                ": a k-times larger batch takes k times fewer steps, yet here scaling the lr did not pay beyond noise.",
                scaled.testAcc() > unchanged.testAcc()
                        ? ": a k-times larger batch takes k times fewer steps, and scaling the lr with k makes up for"
                                + " them."
                        : ": the scaled lr was too large a step here; it did worse than the unchanged one.");
    }

    @Override
    public void run(LessonContext ctx) {
        report(ctx, rows(ctx));
    }

    void report(LessonContext ctx, List<Row> rows) {
        ctx.out()
                .println(claim(rows, ctx.data().test().count()).notice() + " Plot: "
                        + ctx.plots().resolve("exercise-2.png"));
    }
}
