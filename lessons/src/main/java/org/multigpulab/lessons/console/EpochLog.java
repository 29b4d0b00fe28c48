package org.multigpulab.lessons.console;

import java.io.PrintStream;
import java.util.Locale;
import org.multigpulab.core.train.TrainResult;
import org.multigpulab.core.train.TrainingListener;

/** Prints a line per epoch: training loss and accuracy, test accuracy, and the epoch's wall time. */
public final class EpochLog implements TrainingListener {

    private final PrintStream out;

    public EpochLog(PrintStream out) {
        this.out = out;
    }

    @Override
    public void onEpoch(EpochDone e) {
        out.printf(
                Locale.ROOT,
                "epoch %d/%d: train loss %.3f, train acc %.3f, test acc %.3f, %.1f sec%s%n",
                e.epoch(),
                e.epochs(),
                e.trainLoss(),
                e.trainAcc(),
                e.testAcc(),
                e.wallSec(),
                Double.isNaN(e.simSec()) ? "" : " (simulated " + TrainResult.seconds(e.simSec()) + ")");
        out.flush();
    }
}
