package org.multigpulab.lessons.files;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import org.multigpulab.lessons.errors.UserError;

/**
 * Writes a file whole or not at all: into a temporary file beside the target, then moved over it in one step,
 * so a crash or a full disk never leaves a half-written checkpoint, report or plot.
 */
public final class AtomicFile {

    /** Writes the content to a stream. */
    @FunctionalInterface
    public interface Writer {
        void write(OutputStream out) throws IOException;
    }

    private AtomicFile() {
    }

    /**
     * Checks, before long work starts, that {@code target} can be written: its folder exists and is writable,
     * and it is not itself a folder. {@code option} names the option in the message ({@code --save}).
     */
    public static void checkWritable(String option, Path target) {
        Path dir = folderOf(target);
        if (Files.isDirectory(target)) {
            throw new UserError(option + " " + target + " is a folder; give a file name such as "
                    + target.resolve("out"));
        }
        if (!Files.isDirectory(dir)) {
            throw new UserError(option + " " + target + ": the folder " + dir + " does not exist; create it first");
        }
        if (!Files.isWritable(dir)) {
            throw new UserError(option + " " + target + ": the folder " + dir + " is not writable; choose another place");
        }
    }

    /** Writes {@code target} atomically. */
    public static void write(Path target, Writer writer) {
        Path dir = folderOf(target);
        Path temp = null;
        try {
            temp = Files.createTempFile(dir, "." + target.getFileName(), ".part");
            try (OutputStream out = Files.newOutputStream(temp)) {
                writer.write(out);
            }
            if (Files.getFileStore(temp).supportsFileAttributeView("posix")) {
                // A temporary file is private to its owner; the finished file is readable like any other.
                Files.setPosixFilePermissions(temp, PosixFilePermissions.fromString("rw-r--r--"));
            }
            Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            temp = null;
        } catch (NoSuchFileException | AccessDeniedException e) {
            throw new UserError("cannot write " + target + ": " + e.getClass().getSimpleName() + " " + e.getMessage()
                    + "; check that its folder exists and is writable", e);
        } catch (IOException e) {
            throw new UserError("cannot write " + target + ": " + e.getMessage(), e);
        } finally {
            if (temp != null) {
                try {
                    Files.deleteIfExists(temp);
                } catch (IOException ignored) {
                    // The write already failed; that error is the one to report.
                }
            }
        }
    }

    private static Path folderOf(Path target) {
        Path parent = target.toAbsolutePath().getParent();
        return parent == null ? Path.of("/") : parent;
    }
}
