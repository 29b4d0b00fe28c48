package org.multigpulab.core.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class IdxReaderTest {

    @TempDir
    Path dir;

    private String failure(byte[] bytes, int dims) throws IOException {
        Path file = dir.resolve("bad");
        Files.write(file, bytes);
        return assertThrows(DataException.class, () -> IdxReader.read(file, dims))
                .getMessage();
    }

    @Test
    void readsRawAndGzippedFilesAlike() throws IOException {
        byte[] images = TinyIdx.images(3);
        TinyIdx.write(dir.resolve("raw"), images, false);
        TinyIdx.write(dir.resolve("gz"), images, true);
        IdxReader.Idx raw = IdxReader.read(dir.resolve("raw"), 3);
        IdxReader.Idx gz = IdxReader.read(dir.resolve("gz"), 3);
        assertArrayEquals(new int[] {3, 28, 28}, raw.dims());
        assertArrayEquals(raw.data(), gz.data());
        assertEquals(3 * 784, raw.data().length);
        assertEquals((byte) 7, raw.data()[1]);
    }

    @Test
    void namesTheFileAndTheProblem() throws IOException {
        byte[] good = TinyIdx.images(2);
        assertTrue(failure(new byte[] {0, 0}, 3).contains("only 2 bytes"));
        byte[] magic = good.clone();
        magic[0] = 1;
        assertTrue(failure(magic, 3).contains("magic number"));
        byte[] type = good.clone();
        type[2] = 0x0d;
        assertTrue(failure(type, 3).contains("element type 0xd"));
        assertTrue(failure(good, 1).contains("3 dimensions where 1 were expected"));
        assertTrue(failure(Arrays.copyOf(good, good.length - 10), 3).contains("truncated"));
        assertTrue(failure(Arrays.copyOf(good, good.length + 1), 3).contains("the file has"));
        byte[] zero = TinyIdx.idx(new int[] {0, 28, 28}, new byte[0]);
        assertTrue(failure(zero, 3).contains("not a positive size"));
        String bad = failure(new byte[] {0x1f, (byte) 0x8b, 8, 0, 1, 2, 3}, 3);
        assertTrue(
                bad.contains("damaged gzip") && bad.contains(dir.resolve("bad").toString()), bad);
    }

    @Test
    void loadsAFolderOfTinyFilesWithoutChecksums() throws IOException {
        FashionMnist.Splits splits = FashionMnist.load(TinyIdx.folder(dir), false);
        assertEquals(12, splits.train().count());
        assertEquals(5, splits.test().count());
        assertEquals(4, splits.test().label(4));
        assertEquals(3, splits.train().first(3).count());
    }

    @Test
    void checksumsRejectFilesThatAreNotFashionMnist() throws IOException {
        TinyIdx.folder(dir);
        String m = assertThrows(DataException.class, () -> FashionMnist.load(dir, true))
                .getMessage();
        assertTrue(m.contains("train-images-idx3-ubyte") && m.contains("delete it"), m);
        byte[] exactSize = new byte[(int) FashionMnist.TRAIN_LABELS.bytes()];
        m = assertThrows(
                        DataException.class,
                        () -> FashionMnist.verify(dir.resolve("x"), FashionMnist.TRAIN_LABELS, exactSize))
                .getMessage();
        assertTrue(m.contains("SHA-256") && m.contains(FashionMnist.TRAIN_LABELS.sha256()), m);
    }

    @Test
    void imagesAndLabelsMustAgreeAndLabelsMustBeClasses() throws IOException {
        TinyIdx.folder(dir);
        TinyIdx.write(dir.resolve("t10k-labels-idx1-ubyte"), TinyIdx.labels(4), false);
        assertTrue(assertThrows(DataException.class, () -> FashionMnist.load(dir, false))
                .getMessage()
                .contains("5 images but 4 labels"));
        TinyIdx.write(
                dir.resolve("t10k-labels-idx1-ubyte"), TinyIdx.idx(new int[] {5}, new byte[] {1, 2, 3, 10, 0}), false);
        assertTrue(assertThrows(DataException.class, () -> FashionMnist.load(dir, false))
                .getMessage()
                .contains("label 10 of sample 3"));
    }

    @Test
    void theLocatorSearchesInOrderAndTrustsAnExplicitFolderOnly() throws IOException {
        Path home = Files.createDirectories(dir.resolve("home"));
        Path env = TinyIdx.folder(Files.createDirectories(dir.resolve("env")));
        DataLocator viaEnv = new DataLocator(Optional.empty(), Map.of(DataLocator.ENV_VAR, env.toString()), home);
        assertEquals(env, viaEnv.candidates().getFirst());
        assertEquals(home.resolve(".cache/multigpu-lab/fashion-mnist"), viaEnv.cacheDir());
        assertEquals(Optional.of(env), viaEnv.locate());

        Path empty = Files.createDirectories(dir.resolve("empty"));
        DataLocator explicit = new DataLocator(Optional.of(empty), Map.of(DataLocator.ENV_VAR, env.toString()), home);
        assertTrue(
                assertThrows(DataException.class, explicit::locate).getMessage().contains("lacks some"));
        DataLocator missing = new DataLocator(Optional.of(dir.resolve("nope")), Map.of(), home);
        assertTrue(
                assertThrows(DataException.class, missing::locate).getMessage().contains("is not a folder"));
    }
}
