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
        int epochs = ctx.epochs(5);
        List<Curve> curves = new ArrayList<>();
        LearningCurve chart = new LearningCurve(
                "train(num_gpus, batch_size=" + ctx.batchSize() + ", lr=0.2)",
                ctx.plots(),
                "learning-curves",
                ctx.interactive(),
                curves);
        List<TrainResult> results = new ArrayList<>();
        for (int gpus : new int[] {1, ctx.gpus(2)}) {
            Curve test = new Curve("test acc, " + gpus + " GPU" + (gpus > 1 ? "s" : ""));
            Curve train = new Curve("train acc, " + gpus + " GPU" + (gpus > 1 ? "s" : ""));
            curves.add(test);
            curves.add(train);
            TrainResult result =
                    ctx.train(gpus, LessonContext.recipe(epochs, ctx.batchSize(), 0.2f), chart.listener(test, train));
            ctx.out().println(result.summaryLine());
            results.add(result);
        }
        return results;
    }

    @Override
    public void run(LessonContext ctx) {
        List<TrainResult> r = compare(ctx);
        ctx.out()
                .printf(
                        "Notice: the same global batches give the same accuracy (%.3f and %.3f): data parallelism"
                                + " changes where the arithmetic runs, not what it computes. Plot: %s%n",
                        r.get(0).finalTestAcc(),
                        r.get(1).finalTestAcc(),
                        ctx.plots().resolve("learning-curves.png"));
    }
}
