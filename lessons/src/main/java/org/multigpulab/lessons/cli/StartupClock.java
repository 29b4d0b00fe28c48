package org.multigpulab.lessons.cli;

import java.lang.management.ManagementFactory;
import org.multigpulab.core.train.TrainingListener;

/**
 * How long a run took to reach its first batch: from the JVM's start, through reading the data, opening the
 * devices and building the model, to training's start. What a student waits for before anything happens.
 */
final class StartupClock implements TrainingListener {

    private double seconds = Double.NaN;

    @Override
    public void onStart(Start start) {
        if (Double.isNaN(seconds)) {
            seconds = (System.currentTimeMillis()
                            - ManagementFactory.getRuntimeMXBean().getStartTime())
                    / 1e3;
        }
    }

    /** Seconds from the JVM's start to the first batch; {@code NaN} before training started. */
    double seconds() {
        return seconds;
    }
}
