package org.multigpulab.lessons.lesson;

import java.util.ArrayList;
import java.util.List;
import org.multigpulab.core.data.BatchIterator;
import org.multigpulab.core.train.TrainResult;
import org.multigpulab.lessons.plot.ChartFiles;
import org.multigpulab.lessons.plot.Charts;
import org.multigpulab.lessons.plot.Curve;
import org.multigpulab.lessons.plot.LearningCurve;

/** d2l §12.5 exercise 1: on k GPUs use a batch of k·b. What changes, at the same learning rate? */
public final class Exercise1Lesson implements Lesson {

    /** One configuration's outcome. */
    public record Row(int gpus, int batchSize, int stepsPerEpoch, double testAcc, double secPerEpoch) {}

    @Override
    public String name() {
        return "exercise-1";
    }

    @Override
    public String summary() {
        return "batch k*b on k GPUs at the same lr: fewer steps per epoch, and what that does to accuracy";
    }

    public List<Row> rows(LessonContext ctx) {
        int base = ctx.batchSize();
        int epochs = ctx.epochs(3);
        List<Curve> curves = new ArrayList<>();
        LearningCurve chart = new LearningCurve(
                "batch k*" + base + " on k GPUs, lr 0.2",
                ctx.plots(),
                "exercise-1-accuracy",
                ctx.interactive(),
                curves);
        Curve time = new Curve("wall sec/epoch");
        List<Row> rows = new ArrayList<>();
        for (int k : new int[] {1, 2, 4}) {
            Curve test = new Curve("test acc, k=" + k), train = new Curve("train acc, k=" + k);
            curves.add(test);
            curves.add(train);
            TrainResult r = ctx.train(k, LessonContext.recipe(epochs, k * base, 0.2f), chart.listener(test, train));
            int steps = BatchIterator.batchesPerEpoch(ctx.data().train().count(), k * base);
            rows.add(new Row(k, k * base, steps, r.finalTestAcc(), r.secPerEpoch()));
            time.add(k, r.secPerEpoch());
            ctx.out().printf("k=%d, batch %d: %d steps/epoch; %s%n", k, k * base, steps, r.summaryLine());
        }
        ChartFiles.save(
                Charts.bars(
                        "sec/epoch against GPUs (batch k*" + base + ")",
                        "GPUs",
                        "wall seconds per epoch",
                        List.of(time)),
                ctx.plots(),
                "exercise-1-sec-per-epoch");
        return rows;
    }

    @Override
    public void run(LessonContext ctx) {
        List<Row> rows = rows(ctx);
        ctx.out()
                .printf(
                        "Notice: k times the batch means k times fewer steps (%d → %d per epoch); at the same lr the"
                                + " model %s per epoch (test acc %.3f → %.3f). Exercise 2 scales the lr to make up for it."
                                + " Plots in %s%n",
                        rows.getFirst().stepsPerEpoch(),
                        rows.getLast().stepsPerEpoch(),
                        rows.getLast().testAcc() < rows.getFirst().testAcc() ? "learns less" : "learns as much",
                        rows.getFirst().testAcc(),
                        rows.getLast().testAcc(),
                        ctx.plots());
    }
}
