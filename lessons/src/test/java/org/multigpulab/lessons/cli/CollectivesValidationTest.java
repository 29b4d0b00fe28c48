package org.multigpulab.lessons.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.multigpulab.device.CollectiveCostModel;
import org.multigpulab.lessons.collectives.Fit;
import org.multigpulab.lessons.collectives.Measurement;
import org.multigpulab.lessons.collectives.Validation;

/**
 * The cost model against the published nccl-tests measurements in this module's resources: its fitted figures are
 * the calibration set's fit, the calibration set sits within its bands, and the validation set, kept apart from the
 * fit, meets issue 49's goal (docs/ARCHITECTURE.md), and sees any one figure a validation row uses moved by 30 %
 * one way or the other.
 */
class CollectivesValidationTest {

    private final CollectiveCostModel model = CollectiveCostModel.find();
    private final Validation calibration = Validation.of(model, Measurement.calibration());
    private final Validation validation = Validation.of(model, Measurement.validation());

    @Test
    void theFittedFiguresAreTheCalibrationSetsFit() {
        Fit fit = Fit.of(model, Measurement.calibration());
        for (String name : model.fitted().keySet()) {
            assertEquals(
                    fit.figures().get(name),
                    model.figures().get(name),
                    0.01 * fit.figures().get(name),
                    name);
        }
    }

    /**
     * Looser than the validation's goal: calibration holds the runs the model is known to miss (EFA's transport, the
     * H100 PCIe pair's bridges, the V100 mesh's links, which carry more than NCCL's 20 GB/s a link).
     */
    @Test
    void theCalibrationSetIsWithinItsBands() {
        String table = String.join("\n", calibration.report());
        assertTrue(calibration.medianLargeError() <= 0.12, table);
        assertTrue(calibration.worstRatio(true) <= 2.5, table);
        assertTrue(calibration.worstRatio(false) <= 2.5, table);
    }

    @Test
    void theValidationSetMeetsIssue49sGoal() {
        String table = String.join("\n", validation.report());
        assertTrue(Validation.Goal.ISSUE_49.metBy(validation), table);
        assertTrue(
                validation.counted(true).size() >= 20
                        && validation.counted(false).size() >= 20,
                table);
    }

    /**
     * Every figure a counted validation row uses is held by the validation set: moved by 30 % one way or the other, a
     * figure that moves a size of 16 MB or more misses issue 49's goal, and one that moves only smaller sizes (whose
     * band, 2×, is wider than what 30 % of a latency moves) makes their worst ratio worse.
     */
    @Test
    void movingAnyFigureAValidationRowUses30PercentOneWayOrTheOtherIsSeen() {
        List<String> unseen = new ArrayList<>();
        for (String name : model.figures().keySet()) {
            boolean large = false, small = false, missed = false, worse = false;
            for (double factor : new double[] {0.7, 1.3}) {
                Validation moved = Validation.of(
                        model.with(Map.of(name, model.figures().get(name) * factor)), Measurement.validation());
                for (int i = 0; i < moved.comparisons().size(); i++) {
                    Validation.Comparison was = validation.comparisons().get(i);
                    if (was.counted() && moved.comparisons().get(i).modelled() != was.modelled()) {
                        large |= was.bytes() >= Validation.LARGE;
                        small |= was.bytes() < Validation.SMALL;
                    }
                }
                missed |= !Validation.Goal.ISSUE_49.metBy(moved);
                worse |= moved.worstRatio(false) > validation.worstRatio(false) * 1.02;
            }
            if ((large && !missed) || (!large && small && !worse)) {
                unseen.add(name);
            }
        }
        assertEquals(List.of(), unseen);
    }

    @Test
    void theSetsCoverTheKindsOfSystemTheIssueNames() {
        List<Measurement> all = Measurement.all();
        assertTrue(all.stream().anyMatch(m -> m.spec().topology().endsWith("-host")));
        assertTrue(all.stream()
                .anyMatch(m -> m.spec().nodes() == 1
                        && m.spec().gpus() == 8
                        && m.spec().topology().startsWith("nvlink")));
        assertTrue(all.stream()
                .anyMatch(m -> m.spec().nodes() == 2 && "hdr".equals(m.spec().nic())));
        for (Measurement m : all) {
            assertTrue(
                    Validation.of(model, List.of(m)).comparisons().stream().anyMatch(Validation.Comparison::counted),
                    m.name() + " has no size the bands count");
        }
    }

    @Test
    void validateReportsTheGoalAndChartsEverySystem(@TempDir Path dir) throws IOException {
        LabRunner.Result r = CollectivesCommandTest.collectives("--validate", "--plot-dir", dir.toString());
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("goal: worst ratio below 1M"), r.out());
        for (Measurement m : Measurement.all()) {
            assertTrue(Files.size(dir.resolve("collectives-" + m.name() + ".png")) > 1000, m.name());
        }
    }

    @Test
    void fitPrintsTheFiguresBesideTheModels() {
        LabRunner.Result r = CollectivesCommandTest.collectives("--fit");
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("latency-scale") && r.out().contains("rms log error"), r.out());
    }
}
