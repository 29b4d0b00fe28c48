package org.multigpulab.lessons.lesson;

import java.util.List;
import java.util.Optional;

/** d2l §12.5 exercise 1: on k GPUs use a batch of k·b. What changes, at the same learning rate? */
public final class Exercise1Lesson implements Lesson {

    @Override
    public String name() {
        return "exercise-1";
    }

    @Override
    public String summary() {
        return "batch k*b on k GPUs at the same lr: fewer steps per epoch, and what that does to accuracy";
    }

    List<ScaledBatchRuns.Row> rows(LessonContext ctx) {
        return ScaledBatchRuns.run(ctx, name(), k -> 0.2f, "lr 0.2");
    }

    /** The conclusion: at the same lr, k times fewer steps learn less per epoch, unless the numbers say not. */
    static Claim claim(List<ScaledBatchRuns.Row> rows, int testImages) {
        ScaledBatchRuns.Row first = rows.getFirst(), last = rows.getLast();
        Optional<Claim> notLearned = ScaledBatchRuns.notLearned(rows);
        if (notLearned.isPresent()) {
            return notLearned.get();
        }
        Claim same = ScaledBatchRuns.sameAccuracy(rows, testImages);
        String steps = String.format(
                " with %d → %d steps per epoch at the same lr", first.stepsPerEpoch(), last.stepsPerEpoch());
        return same.and(
                steps + ": fewer, equally long steps lost nothing here.",
                steps
                        + (last.testAcc() < first.testAcc()
                                ? ": k times fewer steps of the same length learn less per epoch; exercise 2 scales the lr."
                                : ": the larger batch learned more per epoch here."));
    }

    @Override
    public void run(LessonContext ctx) {
        report(ctx, rows(ctx));
    }

    void report(LessonContext ctx, List<ScaledBatchRuns.Row> rows) {
        ctx.out().println(claim(rows, ctx.data().test().count()).notice() + " Plots in " + ctx.plots());
    }
}
