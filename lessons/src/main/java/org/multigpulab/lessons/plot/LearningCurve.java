package org.multigpulab.lessons.plot;

import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;
import org.knowm.xchart.XYChart;
import org.multigpulab.core.model.Model;
import org.multigpulab.core.train.TrainingListener;

/**
 * The notebook's animated learning curve for one or more runs: accuracies (0 to 1) against the epoch and, where
 * asked for, the training loss against a second axis on the right, redrawn after every epoch into {@code NAME.png|svg} and,
 * when asked for and a display is there, a window. The x axis spans all epochs from the start, as the notebook's
 * {@code Animator(xlim=[1, num_epochs])}.
 */
public final class LearningCurve {

    /**
     * The mean loss of a uniform guess over the classes, ln 10 ≈ 2.30: training from the notebook's small initial
     * weights starts there and falls, so the loss axis reaches it from the start (and further if a loss does).
     */
    private static final double UNIFORM_GUESS_LOSS = Math.log(Model.CLASSES);

    private final LiveChart chart;
    private final List<Curve> curves;
    private double lossAxisMax = UNIFORM_GUESS_LOSS;

    public LearningCurve(String title, Path dir, String name, boolean window, List<Curve> curves) {
        this(title, dir, name, window, curves, chart -> {});
    }

    /** As {@link #LearningCurve(String, Path, String, boolean, List)}, each redraw also shown in {@code view}. */
    public LearningCurve(
            String title, Path dir, String name, boolean window, List<Curve> curves, Consumer<XYChart> view) {
        this.curves = curves;
        this.chart = new LiveChart(Charts.perEpoch(title, "accuracy", true), dir, name, window, view);
    }

    /** A listener that adds each epoch of one run to {@code test} and {@code train} and redraws. */
    public TrainingListener listener(Curve test, Curve train) {
        return listener(test, train, null);
    }

    /**
     * A listener that adds each epoch of one run to {@code test}, {@code train} and, unless null, the mean training
     * loss to {@code loss} (a {@link Curve.YAxis#RIGHT} curve), and redraws; a resumed run's curve starts with the
     * epochs its checkpoint had finished.
     */
    public TrainingListener listener(Curve test, Curve train, Curve loss) {
        return new TrainingListener() {
            @Override
            public void onStart(Start start) {
                chart.update(c -> {
                    Charts.epochAxis(c, start.epochs());
                    if (loss != null) {
                        Charts.rightAxis(c, "loss", lossAxisMax);
                    }
                });
                start.from().finished().forEach(this::onEpoch);
            }

            @Override
            public void onEpoch(EpochDone e) {
                test.add(e.epoch(), e.testAcc());
                train.add(e.epoch(), e.trainAcc());
                if (loss != null) {
                    loss.add(e.epoch(), e.trainLoss());
                    lossAxisMax = Math.max(lossAxisMax, e.trainLoss());
                }
                chart.update(c -> {
                    if (loss != null) {
                        Charts.rightAxis(c, "loss", lossAxisMax);
                    }
                    curves.forEach(curve -> Charts.update(c, curve));
                });
            }
        };
    }

    /** Redraws now, for curves filled from outside a training run. */
    public void redraw() {
        chart.redraw(curves);
    }

    /** Whether the curve is in a window on screen. */
    public boolean shown() {
        return chart.shown();
    }

    /** Waits until the student closes the window; returns at once when there is none. */
    public void awaitClosed() {
        chart.awaitClosed();
    }
}
