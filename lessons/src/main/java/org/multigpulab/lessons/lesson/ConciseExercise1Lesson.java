package org.multigpulab.lessons.lesson;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.multigpulab.core.model.ResNet18;
import org.multigpulab.core.train.TrainResult;

/**
 * d2l §12.6 exercise 1 with its ResNet-18: more GPUs, the batch and the learning rate scaled with them (1, 2 and 4
 * GPUs, batch 256·k, lr 0.1·k), trained on a slice; and the exercise's question, what 16 GPUs would do, answered in
 * simulated time (time only) for V100s on all 60,000 images.
 */
public final class ConciseExercise1Lesson implements Lesson {

    /** A speed-up below this is no speed-up: wall times of one run vary by a tenth on a shared machine. */
    static final double SPEED_UP = 1.2;

    @Override
    public String name() {
        return "concise-exercise-1";
    }

    @Override
    public String summary() {
        return "ResNet-18 on 1, 2, 4 GPUs with batch 256*k and lr 0.1*k: accuracy and sec/epoch; 1 to 16 simulated V100s";
    }

    /** The slice trained by default, and the epochs. */
    static final int TRAIN_IMAGES = 1024, TEST_IMAGES = 512, EPOCHS = 1;
    /** The GPUs simulated for the exercise's question. */
    static final int[] SIMULATED = {1, 2, 4, 8, 16};

    List<ScaledBatchRuns.Row> rows(LessonContext ctx) {
        ctx.data(TRAIN_IMAGES, TEST_IMAGES);
        return ScaledBatchRuns.run(ctx, name(), k -> 0.1f * k, "lr 0.1*k", new ResNet18(), EPOCHS);
    }

    /** Simulated V100-SXM2 seconds per epoch of all 60,000 images at each count of {@link #SIMULATED}, batch 256·k. */
    static double[] simulatedEpochs(int batch) {
        return Arrays.stream(SIMULATED)
                .mapToDouble(k -> ConciseLesson.simulatedEpoch(new ResNet18(), k, batch * k))
                .toArray();
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
        double[] simulated = simulatedEpochs(ctx.batchSize());
        ctx.out()
                .println("What 16 GPUs would do: simulated V100-SXM2s, all 60,000 images, batch " + ctx.batchSize()
                        + "·k (time only, the GPUs alone):");
        for (int i = 0; i < SIMULATED.length; i++) {
            ctx.out()
                    .printf(
                            Locale.ROOT,
                            "  %2d GPU%s: %s sec/epoch, %.2f× one's%n",
                            SIMULATED[i],
                            SIMULATED[i] == 1 ? " " : "s",
                            TrainResult.seconds(simulated[i]),
                            simulated[0] / simulated[i]);
        }
        int last = SIMULATED.length - 1;
        ctx.out()
                .println(Claim.ratioAbove(
                                "simulated speed-up of " + SIMULATED[last] + " V100s over 1",
                                simulated[0],
                                simulated[last],
                                SIMULATED[last] / 2.0)
                        .and(
                                ": more than half of linear, ResNet-18's compute still outweighs the exchange.",
                                ": less than half of linear, the exchange and the slowest GPU eat the rest.")
                        .notice());
    }

    void report(LessonContext ctx, List<ScaledBatchRuns.Row> rows) {
        for (Claim c : claims(rows, ctx.data().test().count())) {
            ctx.out().println(c.notice());
        }
        ctx.out().println("Plots in " + ctx.plots());
    }
}
