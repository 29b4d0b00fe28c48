package org.multigpulab.lessons.files;

import com.google.gson.FieldNamingPolicy;
import com.google.gson.GsonBuilder;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import org.multigpulab.lessons.errors.UserError;

/**
 * Writes a file whole or not at all: into a temporary file beside the target, forced to the disk, then moved
 * over it in one step and the folder forced too, so a crash, a killed process, a power cut or a full disk
 * leaves the old file or the new one, never a half-written checkpoint, report or plot.
 */
public final class AtomicFile {

    /** Writes the content to a stream. */
    @FunctionalInterface
    public interface Writer {
        void write(OutputStream out) throws IOException;
    }

    private AtomicFile() {}

    /**
     * Checks, before long work starts, that {@code target} can be written: its folder exists and is writable,
     * and it is not itself a folder. {@code option} names the option in the message ({@code --save}).
     */
    public static void checkWritable(String option, Path target) {
        Path dir = folderOf(target);
        if (Files.isDirectory(target)) {
            throw new UserError(
                    option + " " + target + " is a folder; give a file name such as " + target.resolve("out"));
        }
        if (!Files.isDirectory(dir)) {
            throw new UserError(option + " " + target + ": the folder " + dir + " does not exist; create it first");
        }
        if (!Files.isWritable(dir)) {
            throw new UserError(
                    option + " " + target + ": the folder " + dir + " is not writable; choose another place");
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
     * Writes {@code target} atomically and durably: its contents reach the disk before its name does, and its
     * name before this returns (where the file system lets a folder be forced).
     */
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
            forceFile(temp);
            Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            temp = null;
            forceFolder(dir);
        } catch (NoSuchFileException | AccessDeniedException e) {
            throw new UserError(
                    "cannot write " + target + ": " + e.getClass().getSimpleName() + " " + e.getMessage()
                            + "; check that its folder exists and is writable",
                    e);
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

    /**
     * Forces the file's contents and attributes to the disk, so the rename cannot reach the disk before them and
     * leave an empty or partial file under the target's name after a power cut. It reopens the file by its path
     * (fsync applies to the file, not to one descriptor) because a writer may close the stream it was given.
     */
    private static void forceFile(Path file) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            channel.force(true);
        }
    }

    /** Forces the folder, which holds the rename, to the disk, so the new name survives a power cut. */
    private static void forceFolder(Path dir) throws IOException {
        try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ)) {
            try {
                channel.force(true);
            } catch (IOException e) {
                // Some file systems refuse fsync on a folder (EINVAL); there the rename is as durable as they
                // make it, and the file is written, so this is no reason to report a failed write.
            }
        }
    }

    private static Path folderOf(Path target) {
        Path parent = target.toAbsolutePath().getParent();
        return parent == null ? Path.of("/") : parent;
    }
}
