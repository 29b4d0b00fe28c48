package org.multigpulab.lessons.console;

import java.io.Console;
import java.time.temporal.ChronoUnit;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;
import org.multigpulab.core.train.TrainingListener;

/**
 * A progress bar over each epoch's training images on standard error, with images per second and the time
 * left; shown only when standard error is a terminal and the user did not ask for quiet.
 */
public final class ProgressBars implements TrainingListener {

    private int trainSamples;
    private int epochs;
    private ProgressBar bar;

    /** Whether bars should be drawn: a terminal is attached and {@code --quiet} was not given. */
    public static boolean wanted(boolean quiet) {
        Console console = System.console();
        return !quiet && console != null && console.isTerminal();
    }

    @Override
    public void onStart(Start start) {
        trainSamples = start.trainSamples();
        epochs = start.epochs();
    }

    @Override
    public void onBatch(BatchDone b) {
        if (bar == null) {
            bar = new ProgressBarBuilder()
                    .setTaskName("epoch " + b.epoch() + "/" + epochs)
                    .setInitialMax(trainSamples)
                    .setUnit(" img", 1)
                    .showSpeed()
                    .setStyle(ProgressBarStyle.ASCII)
                    .setUpdateIntervalMillis(250)
                    .setSpeedUnit(ChronoUnit.SECONDS)
                    .continuousUpdate()
                    .clearDisplayOnFinish()
                    .build();
        }
        bar.stepBy(b.samples());
        if (b.batch() == b.batchesPerEpoch()) {
            bar.close();
            bar = null;
        }
    }

    /** Packs the bar away if training stops early. */
    public void close() {
        if (bar != null) {
            bar.close();
            bar = null;
        }
    }
}
