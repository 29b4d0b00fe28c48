package org.multigpulab.lessons.validate;

import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.multigpulab.core.Synthetic;
import org.multigpulab.core.model.Model;

/**
 * The {@code host} profile predicts this machine's own epochs. The band is loose, a factor of 2 either way where
 * {@code ./lab validate-model} shows ±15 % on a quiet machine, and each check may take three tries: another
 * program sharing the processor only ever adds wall time, so one quiet try is enough to show the model right,
 * while a model off by the band (a slip of units, a kernel not charged, a calibration of cold code) fails all.
 */
class ModelValidationTest {

    private static final double FACTOR = 2;
    private static final int TRIES = 3;

    private final ModelValidation validation =
            new ModelValidation(Synthetic.splits(4096, 64), new ModelValidation.Plan(4096, 64, 3, false));

    @Test
    void oneLogicalGpuTimedAsTheHostTakesItsPredictedEpoch() {
        for (String model : List.of("lenet", "mlp")) {
            within("1 GPU, " + model + ", batch 128", () -> {
                ModelValidation.Single s = validation.single("cpu", Model.named(model), 128);
                return new double[] {s.simSec(), s.wallSec()};
            });
        }
    }

    @Test
    void severalLogicalGpusDoTheirPredictedWorkAddedUp() {
        within("2 GPUs, lenet, batch 256, busy time", () -> {
            ModelValidation.Several s = validation.several("cpu", Model.named("lenet"), 2, 256);
            return new double[] {s.simBusySec(), s.measuredBusySec()};
        });
    }

    /** {@code simulated} within {@link #FACTOR} of {@code measured} in one of {@link #TRIES} tries. */
    private static void within(String what, Supplier<double[]> simulatedAndMeasured) {
        List<String> tries = new ArrayList<>();
        for (int i = 0; i < TRIES; i++) {
            double[] r = simulatedAndMeasured.get();
            tries.add(String.format(Locale.ROOT, "simulated %.3f s, measured %.3f s", r[0], r[1]));
            if (r[0] < FACTOR * r[1] && r[1] < FACTOR * r[0]) {
                return;
            }
        }
        fail(what + ": the simulated time is not within a factor " + FACTOR + " of the measured one in any of " + TRIES
                + " tries: " + tries);
    }
}
