package org.multigpulab.device.io;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WholeFileTest {

    @TempDir
    Path dir;

    private static byte[] text(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private List<Path> files() throws IOException {
        try (Stream<Path> all = Files.list(dir)) {
            return all.toList();
        }
    }

    @Test
    void writesTheFileReadableByOthersAndLeavesNothingElse() throws IOException {
        Path target = dir.resolve("report.json");
        WholeFile.write(target, text("{\"acc\": 0.75}"));
        assertArrayEquals(text("{\"acc\": 0.75}"), Files.readAllBytes(target));
        assertEquals(List.of(target), files(), "no temporary file is left");
        if (Files.getFileStore(target).supportsFileAttributeView("posix")) {
            assertEquals("rw-r--r--", PosixFilePermissions.toString(Files.getPosixFilePermissions(target)));
        }
    }

    @Test
    void replacesAnEarlierVersion() throws IOException {
        Path target = dir.resolve("params.safetensors");
        WholeFile.write(target, text("version 1, the longer one"));
        WholeFile.write(target, out -> {
            out.write(text("version 2"));
            out.close(); // a content may close its stream
        });
        assertArrayEquals(text("version 2"), Files.readAllBytes(target));
        assertEquals(List.of(target), files());
    }

    @Test
    void aContentThatFailsLeavesTheOldFileAndNoTemporaryOne() throws IOException {
        Path target = dir.resolve("checkpoint.safetensors");
        WholeFile.write(target, text("the old one"));
        IOException diskFull = new IOException("No space left on device");
        IOException thrown = assertThrows(
                IOException.class,
                () -> WholeFile.write(target, out -> {
                    out.write(text("half of the new"));
                    throw diskFull;
                }));
        assertSame(diskFull, thrown, "the content's own failure is the one reported");
        assertArrayEquals(text("the old one"), Files.readAllBytes(target));
        assertEquals(List.of(target), files());
    }

    @Test
    void aMissingFolderIsReportedAndNothingIsMade() {
        Path target = dir.resolve("no-such-folder").resolve("plot.png");
        assertThrows(NoSuchFileException.class, () -> WholeFile.write(target, text("png")));
        assertFalse(Files.exists(target.getParent()));
    }
}
