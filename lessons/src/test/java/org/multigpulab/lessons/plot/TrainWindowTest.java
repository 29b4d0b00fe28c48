package org.multigpulab.lessons.plot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.Color;
import java.awt.image.BufferedImage;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.IntPredicate;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.knowm.xchart.XYChartBuilder;
import org.multigpulab.core.Synthetic;
import org.multigpulab.device.testing.Prerequisite;

/**
 * {@code ./lab train} with a display: on a virtual X display (Xvfb), a JVM of its own trains while its window shows
 * the learning curve; the window stays when training ends, a screenshot is taken, and the window is closed. The
 * test reads the screenshot: a chart, the three curves in their colours, y tick labels that differ.
 */
class TrainWindowTest {

    private static final Path XVFB = Path.of("/usr/bin/Xvfb");

    @TempDir
    Path dir;

    @Test
    void theWindowShowsTheThreeCurvesWithReadableTicksAndStaysUntilClosed() throws Exception {
        Prerequisite.require("display", Files.isExecutable(XVFB), XVFB + " is not there");
        Path data = Synthetic.realDataDir();
        Process xvfb = new ProcessBuilder(
                        XVFB.toString(), "-displayfd", "1", "-screen", "0", "1024x768x24", "-nolisten", "tcp")
                .redirectError(ProcessBuilder.Redirect.DISCARD)
                .start();
        try {
            // Xvfb picks a free display and writes its number once it accepts clients
            String display = new BufferedReader(new InputStreamReader(xvfb.getInputStream(), StandardCharsets.US_ASCII))
                    .readLine();
            assertTrue(display != null && display.matches("\\d+"), "Xvfb said its display: " + display);
            Path shot = dir.resolve("window.png");
            Run run = showTrain(":" + display, shot, data);
            assertEquals(0, run.exit(), run.output());
            assertTrue(run.output().contains(TrainWindowShot.STAYS + ": close its window to finish"), run.output());
            assertTrue(run.output().contains("waiting before the close: true"), run.output());
            assertTrue(run.output().contains("exit after the close: 0"), run.output());
            assertShowsTheCurves(ImageIO.read(shot.toFile()));
        } finally {
            xvfb.destroy();
            xvfb.waitFor();
        }
    }

    private record Run(int exit, String output) {}

    /** {@link TrainWindowShot} on {@code display}: 3 epochs of the MLP on 512 images of Fashion-MNIST. */
    private Run showTrain(String display, Path shot, Path data) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--add-modules",
                "jdk.incubator.vector",
                "--enable-native-access=ALL-UNNAMED",
                "-cp",
                System.getProperty("java.class.path"),
                TrainWindowShot.class.getName(),
                shot.toString()));
        command.addAll(Arrays.asList(
                "train",
                "--model",
                "mlp",
                "--epochs",
                "3",
                "--no-shuffle",
                "--train-samples",
                "512",
                "--test-samples",
                "256",
                "--data",
                data.toString(),
                "--plot-dir",
                dir.resolve("plots").toString()));
        Path log = dir.resolve("child.log");
        ProcessBuilder child =
                new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
        child.environment().put("DISPLAY", display);
        Process p = child.start();
        // a guard against a hang, not a measure
        boolean ended = p.waitFor(90, TimeUnit.SECONDS);
        if (!ended) {
            p.destroyForcibly().waitFor();
        }
        String output = Files.readString(log);
        assertTrue(ended, "still running after 90 s: " + output);
        return new Run(p.exitValue(), output);
    }

    /**
     * Not blank; each of the first three series colours of XChart's theme (train loss, train acc, test acc, in the
     * order they were added) drawn; and left of the plot a column of at least five tick labels, all different (a
     * window whose ticks all read "0" has identical ones).
     */
    private static void assertShowsTheCurves(BufferedImage image) {
        assertTrue(
                image.getWidth() >= Charts.WIDTH && image.getHeight() >= Charts.HEIGHT, "the whole chart is on screen");
        Color[] theme = new XYChartBuilder().build().getStyler().getSeriesColors();
        for (int s = 0; s < 3; s++) {
            Color onWhite = overWhite(theme[s]);
            int pixels = count(image, rgb -> close(new Color(rgb), onWhite));
            // a curve over 3 epochs covers about 900 pixels; its legend entry alone, about 35
            assertTrue(pixels > 300, "series " + s + " in " + onWhite + ": " + pixels + " pixels");
        }
        int ink = count(image, rgb -> luminance(new Color(rgb)) < 128);
        assertTrue(ink > image.getWidth() * image.getHeight() / 200, "text and axes drawn: " + ink + " dark pixels");
        List<String> labels = leftTickLabels(image);
        assertTrue(
                labels.size() >= 5 && new HashSet<>(labels).size() == labels.size(),
                labels.size() + " y tick labels, " + new HashSet<>(labels).size() + " different");
    }

    /**
     * The y tick labels, each as its pattern of dark pixels: the marks one above another in the column of text
     * nearest to the left of the y axis (the axis title is a column further left).
     */
    private static List<String> leftTickLabels(BufferedImage image) {
        int axis = 0;
        while (axis < image.getWidth() && !isAxis(image, axis)) {
            axis++;
        }
        List<int[]> columns = runs(x -> columnHasInk(image, x), axis, 3);
        assertTrue(!columns.isEmpty(), "text left of the y axis at x = " + axis);
        int[] labels = columns.getLast();
        List<String> marks = new ArrayList<>();
        for (int[] rows : runs(y -> rowHasInk(image, y, labels), image.getHeight(), 0)) {
            marks.add(pattern(image, labels, rows));
        }
        return marks;
    }

    /** Whether column {@code x} is a line down most of the image (the y axis), in any colour but white. */
    private static boolean isAxis(BufferedImage image, int x) {
        int drawn = 0;
        for (int y = 0; y < image.getHeight(); y++) {
            drawn += (image.getRGB(x, y) & 0xffffff) != 0xffffff ? 1 : 0;
        }
        return drawn > image.getHeight() / 2;
    }

    /**
     * The runs [from, to) of indices below {@code n} where {@code ink} holds, a run going on over gaps of up to
     * {@code gap} indices (the space between two characters of a label, not the space between two labels).
     */
    private static List<int[]> runs(IntPredicate ink, int n, int gap) {
        List<int[]> runs = new ArrayList<>();
        int start = -1, last = -1;
        for (int i = 0; i < n; i++) {
            if (!ink.test(i)) {
                continue;
            }
            if (start >= 0 && i - last > gap + 1) {
                runs.add(new int[] {start, last + 1});
                start = -1;
            }
            if (start < 0) {
                start = i;
            }
            last = i;
        }
        if (start >= 0) {
            runs.add(new int[] {start, last + 1});
        }
        return runs;
    }

    private static boolean columnHasInk(BufferedImage image, int x) {
        for (int y = 0; y < image.getHeight(); y++) {
            if (dark(image, x, y)) {
                return true;
            }
        }
        return false;
    }

    private static boolean rowHasInk(BufferedImage image, int y, int[] cols) {
        for (int x = cols[0]; x < cols[1]; x++) {
            if (dark(image, x, y)) {
                return true;
            }
        }
        return false;
    }

    private static String pattern(BufferedImage image, int[] cols, int[] rows) {
        StringBuilder s = new StringBuilder();
        for (int y = rows[0]; y < rows[1]; y++) {
            for (int x = cols[0]; x < cols[1]; x++) {
                s.append(dark(image, x, y) ? '#' : '.');
            }
            s.append('\n');
        }
        return s.toString();
    }

    private static boolean dark(BufferedImage image, int x, int y) {
        return luminance(new Color(image.getRGB(x, y))) < 128;
    }

    private static int count(BufferedImage image, IntPredicate match) {
        int n = 0;
        for (int y = 0; y < image.getHeight(); y++) {
            for (int x = 0; x < image.getWidth(); x++) {
                n += match.test(image.getRGB(x, y)) ? 1 : 0;
            }
        }
        return n;
    }

    /** A translucent theme colour as it shows over the white plot. */
    private static Color overWhite(Color c) {
        double a = c.getAlpha() / 255.0;
        return new Color(
                (int) Math.round(c.getRed() * a + 255 * (1 - a)),
                (int) Math.round(c.getGreen() * a + 255 * (1 - a)),
                (int) Math.round(c.getBlue() * a + 255 * (1 - a)));
    }

    /** Within 8 of {@code want} in every channel: rounding in blending, not another colour. */
    private static boolean close(Color got, Color want) {
        return Math.abs(got.getRed() - want.getRed()) <= 8
                && Math.abs(got.getGreen() - want.getGreen()) <= 8
                && Math.abs(got.getBlue() - want.getBlue()) <= 8;
    }

    private static double luminance(Color c) {
        return 0.299 * c.getRed() + 0.587 * c.getGreen() + 0.114 * c.getBlue();
    }
}
