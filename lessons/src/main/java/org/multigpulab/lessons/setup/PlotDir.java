package org.multigpulab.lessons.setup;

import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import org.multigpulab.lessons.files.AtomicFile;

/** The folder plots go to: {@code --plot-dir}, or {@code runs/<date>T<time>/} under the current folder. */
public final class PlotDir {

    private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH-mm-ss");

    private PlotDir() {}

    /**
     * The folder plots will go to, checked now so that a run does not fail at its first chart; it is made when
     * that chart is saved, so a failed run leaves none.
     */
    public static Path choose(Path explicit) {
        Path dir = explicit != null
                ? explicit
                : Path.of("runs", LocalDateTime.now().format(STAMP));
        AtomicFile.checkFolder("--plot-dir", dir);
        return dir;
    }
}
