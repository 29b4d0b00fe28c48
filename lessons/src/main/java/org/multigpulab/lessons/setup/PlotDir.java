package org.multigpulab.lessons.setup;

import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;

/** The folder plots go to: {@code --plot-dir}, or {@code runs/<date>T<time>/} under the current folder. */
public final class PlotDir {

    private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH-mm-ss");

    private PlotDir() {}

    /** The folder plots will go to; it is made when the first chart is saved, so a failed run leaves none. */
    public static Path choose(Path explicit) {
        return explicit != null ? explicit : Path.of("runs", LocalDateTime.now().format(STAMP));
    }
}
