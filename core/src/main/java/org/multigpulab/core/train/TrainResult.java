package org.multigpulab.core.train;

import java.math.BigDecimal;
import java.math.MathContext;
import java.util.List;
import java.util.Locale;
import org.multigpulab.device.DeviceId;

/**
 * What a training run gives: the devices, every epoch's figures, and the notebook's summary (last test accuracy,
 * mean wall seconds per epoch of the training loop). {@code simulated} describes the modelled GPUs
 * ({@code "2× T4 over PCIe 3"}) when the devices are simulated, else it is {@code null}.
 */
public record TrainResult(List<DeviceId> devices, List<TrainingListener.EpochDone> epochs, String simulated) {

    public double finalTestAcc() {
        return epochs.getLast().testAcc();
    }

    public double secPerEpoch() {
        return epochs.stream()
                .mapToDouble(TrainingListener.EpochDone::wallSec)
                .average()
                .orElseThrow();
    }

    /**
     * Mean wall seconds of the epochs after the first, or of the only one: the first epoch of a JVM is slower while
     * the JIT compiles the kernels, so runs compared by their wall time are compared on these.
     */
    public double secPerLaterEpoch() {
        return epochs.stream()
                .skip(epochs.size() > 1 ? 1 : 0)
                .mapToDouble(TrainingListener.EpochDone::wallSec)
                .average()
                .orElseThrow();
    }

    /** Mean simulated seconds per epoch, {@code NaN} on real devices. */
    public double simulatedSecPerEpoch() {
        return epochs.stream()
                .mapToDouble(TrainingListener.EpochDone::simSec)
                .average()
                .orElseThrow();
    }

    /**
     * The notebook's closing line, {@code test acc: 0.74, 4.4 sec/epoch on [sim:0, sim:1]}, and on simulated GPUs what
     * the modelled ones would take: {@code (simulated 2× T4 over PCIe 3: 1.2 sec/epoch)}.
     */
    public String summaryLine() {
        String line = String.format(
                Locale.ROOT, "test acc: %.2f, %.1f sec/epoch on %s", finalTestAcc(), secPerEpoch(), devices);
        return simulated == null
                ? line
                : line + " (simulated " + simulated + ": " + seconds(simulatedSecPerEpoch()) + " sec/epoch)";
    }

    /** Two significant digits below ten seconds ({@code 0.34}, {@code 1.2}), tenths above. */
    public static String seconds(double s) {
        return s >= 10
                ? String.format(Locale.ROOT, "%.1f", s)
                : new BigDecimal(s).round(new MathContext(2)).toPlainString();
    }
}
