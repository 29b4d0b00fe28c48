package org.multigpulab.lessons.lesson;

import java.util.List;

/** d2l §12.6 exercise 1: more GPUs, with the batch and the learning rate scaled with them. */
public final class ConciseExercise1Lesson implements Lesson {

    /** A speed-up below this is no speed-up: wall times of one run vary by a tenth on a shared machine. */
    static final double SPEED_UP = 1.2;

    @Override
    public String name() {
        return "concise-exercise-1";
    }

    @Override
    public String summary() {
        return "1, 2, 4 GPUs with batch 256*k and lr 0.2*k: accuracy and sec/epoch";
    }

    List<ScaledBatchRuns.Row> rows(LessonContext ctx) {
        return ScaledBatchRuns.run(ctx, name(), k -> 0.2f * k, "lr 0.2*k");
    }

    /** The conclusions: whether scaling lr with the batch kept the accuracy, and whether wall time fell. */
    static List<Claim> claims(List<ScaledBatchRuns.Row> rows, int testImages) {
        ScaledBatchRuns.Row first = rows.getFirst(), last = rows.getLast();
        Claim accuracy = ScaledBatchRuns.notLearned(rows)
                .orElseGet(() -> ScaledBatchRuns.sameAccuracy(rows, testImages)
                        .and(" with batch and lr scaled together.", " although batch and lr were scaled together."));
        if (first.epochs() == 1) {
            return List.of(
                    accuracy,
                    new Claim(
                            false,
                            "wall time not compared: each run had one epoch, and k=" + first.gpus() + "'s was the"
                                    + " JVM's first, slower while the JIT compiles; give --epochs 2 or more."));
        }
        Claim faster = Claim.ratioAbove(
                        "wall speed-up, sec/epoch (after each run's first where it has more) at k=" + first.gpus()
                                + " over k=" + last.gpus(),
                        first.secPerEpoch(),
                        last.secPerEpoch(),
                        SPEED_UP)
                .and(
                        ": more devices trained faster.",
                        ": wall time does not fall with logical GPUs that share one processor; they run one after"
                                + " another.");
        return List.of(accuracy, faster);
    }

    @Override
    public void run(LessonContext ctx) {
        report(ctx, rows(ctx));
    }

    void report(LessonContext ctx, List<ScaledBatchRuns.Row> rows) {
        for (Claim c : claims(rows, ctx.data().test().count())) {
            ctx.out().println(c.notice());
        }
        ctx.out().println("Plots in " + ctx.plots());
    }
}
