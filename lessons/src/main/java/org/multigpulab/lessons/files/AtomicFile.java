package org.multigpulab.lessons.files;

import com.google.gson.FieldNamingPolicy;
import com.google.gson.GsonBuilder;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import org.multigpulab.device.io.WholeFile;
import org.multigpulab.lessons.errors.UserError;

/**
 * The lessons' side of {@link WholeFile}: checks before long work that an output can be written, and turns a failed
 * write into a {@link UserError}, so that a checkpoint, report or plot is never half-written and a failure is a
 * message, not a stack trace.
 */
public final class AtomicFile {

    private AtomicFile() {}

    /**
     * Checks, before long work starts, that {@code target} can be written: its folder exists and is writable,
     * and it is not itself a folder. {@code option} names the option in the message ({@code --save}).
     */
    public static void checkWritable(String option, Path target) {
        Path dir = WholeFile.folderOf(target);
        if (Files.isDirectory(target)) {
            throw new UserError(
                    option + " " + target + " is a folder; give a file name such as " + target.resolve("out"));
        }
        if (!Files.isDirectory(dir)) {
            throw new UserError(option + " " + target + ": the folder " + dir + " does not exist; create it first");
        }
        requireNewFiles(option + " " + target, dir);
    }

    /**
     * Checks, before long work starts, that files can be made in the folder {@code dir}, which is made later, with
     * the first file, if it does not exist yet: it is not a file, and the nearest folder above it that exists takes
     * new files.
     */
    public static void checkFolder(String option, Path dir) {
        Path existing = dir.toAbsolutePath().normalize();
        while (!Files.exists(existing)) {
            existing = existing.getParent();
        }
        if (!Files.isDirectory(existing)) {
            throw new UserError(option + " " + dir + ": " + existing + " is a file, not a folder; choose a folder");
        }
        requireNewFiles(option + " " + dir, existing);
    }

    /**
     * Checks that a file can be made in the folder {@code dir}, by making one as {@link WholeFile} makes its
     * temporary one and removing it: the permission bits do not say it for root, nor for a read-only or virtual file
     * system such as /proc. {@code what} (option and path) starts the message.
     */
    private static void requireNewFiles(String what, Path dir) {
        try {
            Files.delete(Files.createTempFile(dir, ".lab-write-check", ".part"));
        } catch (IOException | UnsupportedOperationException e) {
            throw new UserError(what + ": the folder " + dir + " is not writable; choose another place", e);
        }
    }

    /** {@code value} as indented JSON with snake_case names (a results file people read), written as {@link #write}. */
    public static void writeJson(Path target, Object value) {
        String text = new GsonBuilder()
                .setPrettyPrinting()
                .setFieldNamingPolicy(FieldNamingPolicy.LOWER_CASE_WITH_UNDERSCORES)
                .create()
                .toJson(value);
        write(target, o -> o.write(text.getBytes(StandardCharsets.UTF_8)));
    }

    /**
     * Writes {@code target} whole or not at all ({@link WholeFile}); a failure becomes a message that names the file
     * and what to do.
     */
    public static void write(Path target, WholeFile.Content content) {
        try {
            WholeFile.write(target, content);
        } catch (NoSuchFileException | AccessDeniedException e) {
            throw new UserError(
                    "cannot write " + target + ": its folder " + WholeFile.folderOf(target)
                            + " is missing or not writable; choose another place",
                    e);
        } catch (IOException e) {
            throw new UserError("cannot write " + target + ": " + e.getMessage(), e);
        }
    }
}
