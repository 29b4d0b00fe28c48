package org.multigpulab.lessons.lesson;

import java.util.ArrayList;
import java.util.List;
import org.multigpulab.core.train.TrainingListener;

/** d2l §12.5 exercise 4: compute the test accuracy on every GPU, not only on GPU 0. */
public final class Exercise4Lesson implements Lesson {

    @Override
    public String name() {
        return "exercise-4";
    }

    @Override
    public String summary() {
        return "test accuracy on all GPUs: identical replicas give identical accuracy";
    }

    /** The test accuracy of each replica after training. */
    public List<Double> accuracies(LessonContext ctx) {
        List<Double> accuracy = new ArrayList<>();
        ctx.train(
                ctx.gpus(4),
                LessonContext.recipe(ctx.epochs(2), ctx.batchSize(), 0.2f),
                new TrainingListener() {},
                trainer -> {
                    for (int i = 0; i < trainer.devices().size(); i++) {
                        double acc = trainer.evaluateAccuracy(ctx.data().test(), i);
                        accuracy.add(acc);
                        ctx.out()
                                .printf(
                                        "test acc on %s: %.4f%n",
                                        trainer.devices().get(i).id(), acc);
                    }
                });
        return accuracy;
    }

    /**
     * Every replica scores the same: the best and the worst replica's accuracy differ by less than one test image
     * of {@code testImages}.
     */
    static Claim claim(List<Double> acc, int testImages) {
        double best = acc.stream().mapToDouble(Double::doubleValue).max().orElseThrow();
        double worst = acc.stream().mapToDouble(Double::doubleValue).min().orElseThrow();
        return Claim.same("test accuracy of the best and the worst replica", best, worst, 1.0 / testImages, 4)
                .and(
                        ", less than one test image: the allreduce leaves every replica the same gradient and every"
                                + " replica takes the same step. The notebook's own allreduce would not (./lab lesson"
                                + " allreduce-bug).",
                        ": the allreduce did not reach every replica.");
    }

    @Override
    public void run(LessonContext ctx) {
        ctx.out().println(claim(accuracies(ctx), ctx.data().test().count()).notice());
    }
}
