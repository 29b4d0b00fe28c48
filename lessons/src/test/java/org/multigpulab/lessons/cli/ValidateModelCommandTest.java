package org.multigpulab.lessons.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.multigpulab.core.Synthetic;
import org.multigpulab.lessons.plot.PlotFilesCheck;

/**
 * {@code ./lab validate-model} prints a row per configuration whose error is its own numbers' ratio, a verdict
 * that agrees with the rows, a chart and its JSON; bad options are one line each.
 */
class ValidateModelCommandTest {

    private static final Pattern ROW = Pattern.compile(
            "\\| cpu \\| (\\w+) \\| (\\d+) \\| \\d+ \\| ([0-9.]+) \\| ([0-9.]+) \\| ([-+][0-9.]+)% \\|");
    private static final Pattern VERDICT =
            Pattern.compile("Notice: largest \\|error\\| of a simulated epoch \\(cpu \\w+"
                    + " batch \\d+\\) ([0-9.]+) ([<≥]) ([0-9.]+)");

    @Test
    void printsEachConfigurationItsErrorAVerdictAndAChart(@TempDir Path dir) throws Exception {
        Synthetic.realDataDir();
        LabRunner.Result r = LabRunner.run(
                "validate-model",
                "--physical",
                "cpu",
                "--model",
                "lenet,mlp",
                "--batch-sizes",
                "64,256",
                "--gpus",
                "2",
                "--epochs",
                "2",
                "--calibration",
                "cached",
                "--train-samples",
                "1024",
                "--test-samples",
                "100",
                "--plot-dir",
                dir.toString());
        assertEquals(0, r.exit(), r.err() + r.out());
        Matcher row = ROW.matcher(r.out());
        double largest = 0;
        int rows = 0;
        while (row.find()) {
            rows++;
            double wall = Double.parseDouble(row.group(3));
            double sim = Double.parseDouble(row.group(4));
            double error = Double.parseDouble(row.group(5)) / 100;
            // the printed figures are rounded to 3 decimals: their ratio agrees with the error to that rounding
            assertEquals(sim / wall - 1, error, 0.0015 / wall * (1 + sim / wall) + 0.0006, row.group());
            largest = Math.max(largest, Math.abs(error));
        }
        assertEquals(4, rows, r.out());
        Matcher verdict = VERDICT.matcher(r.out());
        assertTrue(verdict.find(), r.out());
        assertEquals(largest, Double.parseDouble(verdict.group(1)), 0.05 * largest + 0.006, r.out());
        boolean below = Double.parseDouble(verdict.group(1)) < Double.parseDouble(verdict.group(3));
        assertEquals(below ? "<" : "≥", verdict.group(2), r.out());
        assertTrue(r.out().contains("2 on cpu: wall"), r.out());
        PlotFilesCheck.assertChart(dir, "validate-model");
        assertTrue(Files.readString(dir.resolve("validate-model.json")).contains("\"largest_error\""));
    }

    @Test
    void badOptionsAreOneLineEach() {
        for (List<String> args : List.of(
                List.of("--epochs", "1"),
                List.of("--physical", "sim"),
                List.of("--batch-sizes", "0"),
                List.of("--tolerance", "-1"),
                List.of("--model", "resnet"),
                List.of("--repeats", "0"))) {
            String[] all = new String[args.size() + 1];
            all[0] = "validate-model";
            for (int i = 0; i < args.size(); i++) {
                all[i + 1] = args.get(i);
            }
            LabRunner.Result r = LabRunner.run(all);
            assertEquals(2, r.exit(), args + ": " + r.err() + r.out());
            assertTrue(r.err().strip().lines().count() == 1, args + " gives one line: " + r.err());
        }
    }

    @Test
    void anUnknownCalibrationChoiceNamesTheChoices() {
        LabRunner.Result r = LabRunner.run("validate-model", "--calibration", "sometimes");
        assertEquals(2, r.exit(), r.err() + r.out());
        List<String> lines = r.err().strip().lines().toList();
        assertTrue(
                lines.getFirst().contains("--calibration") && lines.getFirst().contains("[fresh, cached]"), r.err());
        assertTrue(
                lines.size() == 2 && lines.get(1).contains("--help"),
                "then where the help is, nothing more: " + r.err());
    }
}
