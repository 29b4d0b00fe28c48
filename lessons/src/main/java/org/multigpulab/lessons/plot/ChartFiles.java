package org.multigpulab.lessons.plot;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.VectorGraphicsEncoder;
import org.knowm.xchart.internal.chartpart.Chart;
import org.multigpulab.lessons.errors.UserError;
import org.multigpulab.lessons.files.AtomicFile;

/** Saves a chart as {@code NAME.png} and {@code NAME.svg} in a folder, each written whole or not at all. */
public final class ChartFiles {

    private ChartFiles() {}

    /** The two files written. */
    public static List<Path> save(Chart<?, ?> chart, Path dir, String name) {
        try {
            Files.createDirectories(dir);
        } catch (FileAlreadyExistsException e) {
            throw new UserError("cannot make the plot folder " + dir + ": " + e.getFile()
                    + " is a file; choose a folder with --plot-dir");
        } catch (IOException e) {
            throw new UserError("cannot make the plot folder " + dir + " (" + e.getMessage()
                    + "); choose a writable one with --plot-dir");
        }
        Path png = dir.resolve(name + ".png");
        Path svg = dir.resolve(name + ".svg");
        AtomicFile.write(png, out -> BitmapEncoder.saveBitmap(chart, out, BitmapEncoder.BitmapFormat.PNG));
        AtomicFile.write(
                svg,
                out -> VectorGraphicsEncoder.saveVectorGraphic(
                        chart, out, VectorGraphicsEncoder.VectorGraphicsFormat.SVG));
        return List.of(png, svg);
    }
}
