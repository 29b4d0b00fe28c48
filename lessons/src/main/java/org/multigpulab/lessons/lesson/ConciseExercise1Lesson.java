package org.multigpulab.lessons.lesson;

import java.util.ArrayList;
import java.util.List;
import org.multigpulab.core.train.TrainResult;
import org.multigpulab.core.train.TrainingListener;
import org.multigpulab.lessons.plot.ChartFiles;
import org.multigpulab.lessons.plot.Charts;
import org.multigpulab.lessons.plot.Curve;

/** d2l §12.6 exercise 1: more GPUs, with the batch and the learning rate scaled with them. */
public final class ConciseExercise1Lesson implements Lesson {

    /** One configuration's outcome. */
    public record Row(int gpus, int batchSize, float lr, double testAcc, double secPerEpoch) {}

    @Override
    public String name() {
        return "concise-exercise-1";
    }

    @Override
    public String summary() {
        return "1, 2, 4 GPUs with batch 256*k and lr 0.2*k: accuracy and sec/epoch";
    }

    public List<Row> rows(LessonContext ctx) {
        int epochs = ctx.epochs(3);
        Curve acc = new Curve("test acc"), time = new Curve("wall sec/epoch");
        List<Row> rows = new ArrayList<>();
        for (int k : new int[] {1, 2, 4}) {
            TrainResult r = ctx.train(
                    k, LessonContext.recipe(epochs, ctx.batchSize() * k, 0.2f * k), new TrainingListener() {});
            rows.add(new Row(k, ctx.batchSize() * k, 0.2f * k, r.finalTestAcc(), r.secPerEpoch()));
            acc.add(k, r.finalTestAcc());
            time.add(k, r.secPerEpoch());
            ctx.out().printf("k=%d, batch %d, lr %.1f: %s%n", k, ctx.batchSize() * k, 0.2f * k, r.summaryLine());
        }
        ChartFiles.save(
                Charts.bars(
                        "test accuracy after " + epochs + " epochs (batch and lr scaled with k)",
                        "GPUs",
                        "test accuracy",
                        List.of(acc)),
                ctx.plots(),
                "concise-exercise-1-accuracy");
        ChartFiles.save(
                Charts.bars(
                        "sec/epoch against GPUs (batch and lr scaled with k)",
                        "GPUs",
                        "wall seconds per epoch",
                        List.of(time)),
                ctx.plots(),
                "concise-exercise-1-sec-per-epoch");
        return rows;
    }

    @Override
    public void run(LessonContext ctx) {
        List<Row> rows = rows(ctx);
        ctx.out()
                .printf(
                        "Notice: with batch and lr scaled together, test accuracy went %s; k times fewer, larger steps"
                                + " per epoch. Wall time (%.1f → %.1f sec/epoch) does not fall with logical GPUs that share one"
                                + " processor: they run one after another. Plots in %s%n",
                        rows.stream()
                                .map(r -> String.format("%.3f at k=%d", r.testAcc(), r.gpus()))
                                .toList(),
                        rows.getFirst().secPerEpoch(),
                        rows.getLast().secPerEpoch(),
                        ctx.plots());
    }
}
