package org.multigpulab.lessons.console;

import java.io.PrintStream;
import java.util.Locale;
import org.multigpulab.core.train.TrainResult;
import org.multigpulab.core.train.TrainingListener;

/**
 * Prints a line per epoch: training loss and accuracy, test accuracy, and the epoch's wall time; a resumed run
 * first prints the epochs its checkpoint had finished, marked so.
 */
public final class EpochLog implements TrainingListener {

    private final PrintStream out;

    public EpochLog(PrintStream out) {
        this.out = out;
    }

    @Override
    public void onStart(Start start) {
        start.from().finished().forEach(e -> print(e, " (checkpointed)"));
    }

    @Override
    public void onEpoch(EpochDone e) {
        print(e, "");
    }

    private void print(EpochDone e, String note) {
        out.printf(
                Locale.ROOT,
                "epoch %d/%d: train loss %.3f, train acc %.3f, test acc %.3f, %.1f sec%s%s%n",
                e.epoch(),
                e.epochs(),
                e.trainLoss(),
                e.trainAcc(),
                e.testAcc(),
                e.wallSec(),
                Double.isNaN(e.simSec()) ? "" : " (simulated " + TrainResult.seconds(e.simSec()) + ")",
                note);
        out.flush();
    }
}
