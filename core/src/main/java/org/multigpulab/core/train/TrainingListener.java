package org.multigpulab.core.train;

import java.util.List;
import org.multigpulab.device.DeviceId;

/**
 * Told what training does, so progress bars, plots and reports attach without touching the trainer. Called on
 * the training thread; a slow listener slows training (but not its sec/epoch, which times the batches only).
 */
public interface TrainingListener {

    /**
     * Training starts: the devices, how many batches each epoch has, and where it starts ({@link
     * TrainingState#START}, or the state of a checkpointed run it resumes, with the epochs that run finished).
     */
    record Start(
            List<DeviceId> devices,
            int epochs,
            int batchesPerEpoch,
            int trainSamples,
            int testSamples,
            TrainingState from) {}

    /**
     * An optimizer step finished, with {@code batch} of the epoch's mini-batches done (a step accumulating
     * micro-batches did several): its summed loss and number of correct predictions over {@code samples}.
     */
    record BatchDone(int epoch, int batch, int batchesPerEpoch, int samples, double lossSum, int correct) {}

    /**
     * An epoch finished: mean training loss and accuracy, test accuracy on device 0, its wall seconds and, on
     * simulated GPUs, its simulated seconds ({@code NaN} on real devices).
     */
    record EpochDone(
            int epoch, int epochs, double trainLoss, double trainAcc, double testAcc, double wallSec, double simSec) {}

    default void onStart(Start start) {}

    default void onBatch(BatchDone batch) {}

    default void onEpoch(EpochDone epoch) {}

    /** Several listeners as one, called in order. */
    static TrainingListener all(List<TrainingListener> listeners) {
        return new TrainingListener() {
            @Override
            public void onStart(Start start) {
                listeners.forEach(l -> l.onStart(start));
            }

            @Override
            public void onBatch(BatchDone batch) {
                listeners.forEach(l -> l.onBatch(batch));
            }

            @Override
            public void onEpoch(EpochDone epoch) {
                listeners.forEach(l -> l.onEpoch(epoch));
            }
        };
    }
}
