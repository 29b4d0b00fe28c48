package org.multigpulab.core.train;

import java.util.List;
import org.multigpulab.device.DeviceId;

/**
 * What a training run gives: the devices, every epoch's figures, and the seed's summary (last test accuracy,
 * mean wall seconds per epoch of the training loop).
 */
public record TrainResult(List<DeviceId> devices, List<TrainingListener.EpochDone> epochs) {

    public double finalTestAcc() {
        return epochs.getLast().testAcc();
    }

    public double secPerEpoch() {
        return epochs.stream().mapToDouble(TrainingListener.EpochDone::wallSec).average().orElseThrow();
    }

    /** The seed's closing line: {@code test acc: 0.74, 4.4 sec/epoch on [sim:0, sim:1]}. */
    public String summaryLine() {
        return String.format(java.util.Locale.ROOT, "test acc: %.2f, %.1f sec/epoch on %s",
                finalTestAcc(), secPerEpoch(), devices);
    }
}
