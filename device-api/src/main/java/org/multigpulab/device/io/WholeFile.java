package org.multigpulab.device.io;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * Writes a file whole or not at all: into a temporary file beside the target, forced to the disk, then moved over
 * it in one step and the folder forced too, so that a crash, a killed process, a power cut or a full disk leaves
 * the old file or the new one, never a half-written one. Every file the lab keeps (checkpoints, reports, plots, the
 * sim backend's calibration, the data set's files) is written this way; here, below every module that writes one.
 */
public final class WholeFile {

    /** Writes the content to a stream. */
    @FunctionalInterface
    public interface Content {
        void writeTo(OutputStream out) throws IOException;
    }

    private WholeFile() {}

    /** {@link #write(Path, Content)} of these bytes. */
    public static void write(Path target, byte[] bytes) throws IOException {
        write(target, out -> out.write(bytes));
    }

    /**
     * Writes {@code target} atomically and durably: its contents reach the disk before its name does, and its name
     * before this returns (where the file system lets a folder be forced). On any failure, of the content or of the
     * disk, the target is as it was and the temporary file is gone. The folder must exist.
     */
    public static void write(Path target, Content content) throws IOException {
        Path dir = folderOf(target);
        Path temp = Files.createTempFile(dir, "." + target.getFileName(), ".part");
        try {
            try (OutputStream out = Files.newOutputStream(temp)) {
                content.writeTo(out);
            }
            if (Files.getFileStore(temp).supportsFileAttributeView("posix")) {
                // A temporary file is private to its owner; the finished file is readable like any other.
                Files.setPosixFilePermissions(temp, PosixFilePermissions.fromString("rw-r--r--"));
            }
            forceFile(temp);
            Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (Throwable e) {
            try {
                Files.deleteIfExists(temp);
            } catch (IOException notDeleted) {
                e.addSuppressed(notDeleted); // the failure to write is the one to report
            }
            throw e;
        }
        forceFolder(dir);
    }

    /**
     * Forces the file's contents and attributes to the disk, so that the rename cannot reach the disk before them
     * and leave an empty or partial file under the target's name after a power cut. The file is opened again by its
     * path (fsync applies to the file, not to one descriptor) because a content may close the stream it was given.
     */
    private static void forceFile(Path file) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            channel.force(true);
        }
    }

    /** Forces the folder, which holds the rename, to the disk, so that the new name survives a power cut. */
    private static void forceFolder(Path dir) throws IOException {
        try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ)) {
            channel.force(true);
        } catch (IOException e) {
            // Some file systems refuse fsync on a folder (EINVAL); there the rename is as durable as they make it,
            // and the file is written, so this is no reason to report a failed write.
        }
    }

    /** The folder {@code target} is (to be) written in: its parent, or the root for a name at the root. */
    public static Path folderOf(Path target) {
        Path parent = target.toAbsolutePath().getParent();
        return parent == null ? Path.of("/") : parent;
    }
}
