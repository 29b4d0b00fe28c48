package org.multigpulab.jupyter.display;

import java.util.Locale;
import java.util.concurrent.CancellationException;
import org.multigpulab.core.train.TrainingListener;

/**
 * A progress bar for training in a notebook: one line under the cell, drawn again in place (not a stream of
 * carriage returns), with the epoch, the images done, images per second and the time left; redrawn at most five
 * times a second and at the end of each epoch. It is also where an interrupted cell stops training: after each
 * batch it ends the run when the kernel has interrupted the cell's thread. Not thread-safe.
 */
public final class ProgressLine implements TrainingListener {

    private static final int WIDTH = 30;
    private static final long REDRAW_NANOS = 200_000_000L;

    private final LiveDisplay display;
    private int epochs;
    private int epoch;
    private int trainSamples;
    private int done;
    private long epochStart;
    private long lastDrawn;

    ProgressLine(LiveDisplay display) {
        this.display = display;
    }

    @Override
    public void onStart(Start start) {
        epochs = start.epochs();
        trainSamples = start.trainSamples();
    }

    @Override
    public void onBatch(BatchDone batch) {
        if (Thread.currentThread().isInterrupted()) {
            throw new CancellationException("training interrupted in epoch " + batch.epoch() + ", batch "
                    + batch.batch() + " of " + batch.batchesPerEpoch());
        }
        long now = System.nanoTime();
        if (batch.epoch() != epoch) { // the first step of an epoch, which may accumulate several batches
            epoch = batch.epoch();
            done = 0;
            epochStart = now;
        }
        done += batch.samples();
        boolean last = batch.batch() == batch.batchesPerEpoch();
        if (last || now - lastDrawn >= REDRAW_NANOS) {
            display.show(line(batch.epoch(), (now - epochStart) / 1e9));
            lastDrawn = now;
        }
    }

    /** {@code epoch 2/5 [#########.....] 3072/6000 img, 1830 img/s, 1.6 s left} */
    private String line(int epoch, double seconds) {
        int filled = trainSamples == 0 ? WIDTH : (int) ((long) WIDTH * done / trainSamples);
        double rate = seconds > 0 ? done / seconds : 0;
        double left = rate > 0 ? (trainSamples - done) / rate : 0;
        return String.format(
                Locale.ROOT,
                "epoch %d/%d [%s%s] %d/%d img, %.0f img/s, %.1f s left",
                epoch,
                epochs,
                "#".repeat(filled),
                ".".repeat(WIDTH - filled),
                done,
                trainSamples,
                rate,
                left);
    }
}
