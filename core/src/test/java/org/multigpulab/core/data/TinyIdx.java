package org.multigpulab.core.data;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.GZIPOutputStream;

/** Writes small IDX files for tests: a folder of four files shaped like Fashion-MNIST. */
final class TinyIdx {

    private TinyIdx() {}

    static byte[] idx(int[] dims, byte[] data) {
        ByteBuffer b = ByteBuffer.allocate(4 + 4 * dims.length + data.length);
        b.put((byte) 0).put((byte) 0).put((byte) 8).put((byte) dims.length);
        for (int d : dims) {
            b.putInt(d);
        }
        return b.put(data).array();
    }

    static byte[] images(int count) {
        byte[] data = new byte[count * 784];
        for (int i = 0; i < data.length; i++) {
            data[i] = (byte) (i * 7);
        }
        return idx(new int[] {count, 28, 28}, data);
    }

    static byte[] labels(int count) {
        byte[] data = new byte[count];
        for (int i = 0; i < count; i++) {
            data[i] = (byte) (i % 10);
        }
        return idx(new int[] {count}, data);
    }

    static void write(Path file, byte[] bytes, boolean gzip) throws IOException {
        if (gzip) {
            try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(file))) {
                out.write(bytes);
            }
        } else {
            Files.write(file, bytes);
        }
    }

    /** A folder with 12 training and 5 test samples; training files gzipped, test files raw. */
    static Path folder(Path dir) throws IOException {
        write(dir.resolve("train-images-idx3-ubyte.gz"), images(12), true);
        write(dir.resolve("train-labels-idx1-ubyte.gz"), labels(12), true);
        write(dir.resolve("t10k-images-idx3-ubyte"), images(5), false);
        write(dir.resolve("t10k-labels-idx1-ubyte"), labels(5), false);
        return dir;
    }
}
