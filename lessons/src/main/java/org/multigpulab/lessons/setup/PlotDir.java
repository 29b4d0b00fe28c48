package org.multigpulab.lessons.setup;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import org.multigpulab.lessons.errors.UserError;

/** The folder plots go to: {@code --plot-dir}, or {@code runs/<date>T<time>/} under the current folder. */
public final class PlotDir {

    private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH-mm-ss");

    private PlotDir() {
    }

    /** The folder, created if needed. */
    public static Path create(Path explicit) {
        Path dir = explicit != null ? explicit : Path.of("runs", LocalDateTime.now().format(STAMP));
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UserError("--plot-dir " + dir + " cannot be created (" + e.getMessage()
                    + "); choose a writable folder");
        }
        if (!Files.isWritable(dir)) {
            throw new UserError("--plot-dir " + dir + " is not writable; choose another folder");
        }
        return dir;
    }
}
