package org.multigpulab.lessons.lesson;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
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
        int k = ctx.gpus(2);
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
            ctx.out().printf("lr %.2f: %s%n", lr, r.summaryLine());
        }
        return rows;
    }

    @Override
    public void run(LessonContext ctx) {
        List<Row> rows = rows(ctx);
        Row best = rows.stream().max(Comparator.comparingDouble(Row::testAcc)).orElseThrow();
        ctx.out()
                .printf(
                        "Notice: a k-times larger batch averages k times more samples per step and takes k times fewer"
                                + " steps, so the rules of thumb scale lr with k (linear, here %.2f to %.2f) or with its square"
                                + " root; too large a step diverges, and warm-up helps for large k. Best here: lr %.2f, test acc %.3f."
                                + " Plot: %s%n",
                        rows.getFirst().lr(),
                        rows.getLast().lr(),
                        best.lr(),
                        best.testAcc(),
                        ctx.plots().resolve("exercise-2.png"));
    }
}
