package org.multigpulab.jupyter.display;

import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import javax.imageio.ImageIO;
import org.dflib.jjava.jupyter.kernel.DisplayStream;
import org.dflib.jjava.jupyter.kernel.display.DisplayData;
import org.multigpulab.lessons.plot.Curve;
import org.multigpulab.lessons.plot.LearningCurve;
import org.multigpulab.lessons.setup.PlotDir;

/**
 * What a notebook cell calls to show more than text, imported into every cell: {@link #display} a chart or any
 * value, a {@link #learningCurve} redrawn in place after every epoch (the notebook's {@code Animator}), and a
 * {@link #progress} line for training. The kernel attaches its output before the first cell; outside a running
 * cell nothing is shown. Thread-safe.
 */
public final class Notebook {

    private static volatile DisplayStream stream = new DisplayStream();

    private Notebook() {}

    /** Called by the kernel at start: where displays go. */
    public static void attach(DisplayStream output) {
        stream = output;
    }

    /** Called by the kernel at shutdown. */
    public static void detach() {
        stream = new DisplayStream();
    }

    /** Shows {@code value} under the cell: an XChart chart as an image (PNG and SVG), anything else as text. */
    public static void display(Object value) {
        stream.display(render(value, String.valueOf(value)));
    }

    /** A place under the cell that each {@link LiveDisplay#show} draws again. */
    public static LiveDisplay liveDisplay() {
        return new LiveDisplay(stream);
    }

    /**
     * The lessons' learning curve of {@code curves} (accuracy against epoch), drawn under the cell and redrawn in
     * place after every epoch; also saved as PNG and SVG in {@code runs/<date>T<time>/learning-curve.*}.
     */
    public static LearningCurve learningCurve(String title, List<Curve> curves) {
        LiveDisplay display = liveDisplay();
        return new LearningCurve(title, PlotDir.choose(null), "learning-curve", false, curves, display::show);
    }

    /** A progress line for a training run, to pass as one of its listeners; interrupting the cell stops the run. */
    public static ProgressLine progress() {
        return new ProgressLine(liveDisplay());
    }

    /**
     * Shows every PNG chart a lesson saved in {@code dir} (its {@code LessonContext.plots()}), by name; none when
     * it saved none.
     */
    public static void showPlots(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            return;
        }
        try (Stream<Path> files = Files.list(dir)) {
            for (Path png :
                    files.filter(p -> p.toString().endsWith(".png")).sorted().toList()) {
                BufferedImage image = ImageIO.read(png.toFile());
                stream.display(render(image, png.getFileName().toString()));
            }
        }
    }

    /** {@code value} as display data: see {@link ChartImages#render}. */
    public static DisplayData render(Object value, String text) {
        return ChartImages.render(value, text);
    }
}
