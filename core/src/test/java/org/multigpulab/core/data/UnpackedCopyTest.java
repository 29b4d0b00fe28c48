package org.multigpulab.core.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The unpacked copy in the cache folder: made once, whole, only where the default search would read it. */
class UnpackedCopyTest {

    @TempDir
    Path dir;

    private DataLocator locator(Map<String, String> env) throws IOException {
        return new DataLocator(Optional.empty(), env, Files.createDirectories(dir.resolve("home")));
    }

    @Test
    void aPackedFolderFoundByDefaultIsCopiedUnpackedAndTheCopyIsFoundFirst() throws IOException {
        Path packed = TinyIdx.folder(Files.createDirectories(dir.resolve("packed"))); // training files gzipped
        DataLocator locator = locator(Map.of());
        List<Path> written = UnpackedCopy.keep(locator, packed);

        assertEquals(4, written.size(), "all four, so that the cache folder is complete: " + written);
        assertEquals(Optional.of(locator.cacheDir()), locator.locate(), "the next search finds the copy");
        for (FashionMnist.FileSpec spec : FashionMnist.FILES) {
            Path copy = locator.cacheDir().resolve(spec.name());
            assertArrayEquals(
                    IdxReader.uncompressed(FashionMnist.find(packed, spec).orElseThrow()),
                    Files.readAllBytes(copy),
                    spec.name());
        }
        FashionMnist.Splits original = FashionMnist.load(packed, false),
                copied = FashionMnist.load(locator.cacheDir(), false);
        assertArrayEquals(original.train().pixels(), copied.train().pixels());
        assertArrayEquals(original.test().labels(), copied.test().labels());
        try (var files = Files.list(locator.cacheDir())) {
            assertEquals(4, files.count(), "no temporary file is left beside the copies");
        }
        assertEquals(List.of(), UnpackedCopy.keep(locator, packed), "made once");
    }

    @Test
    void nothingIsCopiedWhereItWouldNotBeReadOrThereIsNothingToUnpack() throws IOException {
        Path packed = TinyIdx.folder(Files.createDirectories(dir.resolve("packed")));
        DataLocator viaEnv = locator(Map.of(DataLocator.ENV_VAR, packed.toString()));
        assertEquals(List.of(), UnpackedCopy.keep(viaEnv, packed), "FASHION_MNIST_DIR is searched first");
        DataLocator explicit = new DataLocator(Optional.of(packed), Map.of(), dir.resolve("home"));
        assertEquals(List.of(), UnpackedCopy.keep(explicit, packed), "--data is searched first");

        Path raw = Files.createDirectories(dir.resolve("raw"));
        for (FashionMnist.FileSpec spec : FashionMnist.FILES) {
            Files.write(
                    raw.resolve(spec.name()),
                    IdxReader.uncompressed(FashionMnist.find(packed, spec).orElseThrow()));
        }
        assertEquals(List.of(), UnpackedCopy.keep(locator(Map.of()), raw), "nothing packed");
        assertTrue(Files.notExists(viaEnv.cacheDir()));
    }

    @Test
    void aCacheFolderThatCannotBeMadeIsLeftAlone() throws IOException {
        Path packed = TinyIdx.folder(Files.createDirectories(dir.resolve("packed")));
        Path home = Files.writeString(dir.resolve("home-is-a-file"), "");
        DataLocator locator = new DataLocator(Optional.empty(), Map.of(), home);
        assertEquals(List.of(), UnpackedCopy.keep(locator, packed));
    }
}
