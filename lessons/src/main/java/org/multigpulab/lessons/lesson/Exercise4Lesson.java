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

    @Override
    public void run(LessonContext ctx) {
        List<Double> acc = accuracies(ctx);
        boolean same = acc.stream().distinct().count() == 1;
        ctx.out()
                .println("Notice: "
                        + (same
                                ? "every replica scores the same, because the allreduce leaves every replica the same gradient and"
                                        + " every replica takes the same step. The notebook's own allreduce would not (./lab lesson allreduce-bug)."
                                : "the replicas disagree: the allreduce did not reach every replica."));
    }
}
