package org.multigpulab.lessons.plot;

import java.nio.file.Path;
import java.util.List;
import org.multigpulab.core.train.TrainingListener;

/**
 * The notebook's animated learning curve for one or more runs: test accuracy (and training accuracy, dashed
 * in the legend as "train") against the epoch, redrawn after every epoch into {@code NAME.png|svg}.
 */
public final class LearningCurve {

    private final LiveChart chart;
    private final List<Curve> curves;

    public LearningCurve(String title, Path dir, String name, boolean window, List<Curve> curves) {
        this.curves = curves;
        this.chart = new LiveChart(Charts.lines(title, "epoch", "accuracy", List.of(), true), dir, name, window);
    }

    /** A listener that adds each epoch of one run to {@code test} and {@code train} and redraws. */
    public TrainingListener listener(Curve test, Curve train) {
        return new TrainingListener() {
            @Override
            public void onEpoch(EpochDone e) {
                test.add(e.epoch(), e.testAcc());
                train.add(e.epoch(), e.trainAcc());
                chart.redraw(curves);
            }
        };
    }

    /** Redraws now, for curves filled from outside a training run. */
    public void redraw() {
        chart.redraw(curves);
    }
}
