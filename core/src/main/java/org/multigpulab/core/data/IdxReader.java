package org.multigpulab.core.data;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.zip.GZIPInputStream;
import java.util.zip.ZipException;

/**
 * Reads IDX files (the MNIST format), raw or gzip-compressed: a header of two zero bytes, the element type
 * (0x08, unsigned byte) and the number of dimensions, then each dimension as a big-endian int, then the data.
 * Everything is checked; a problem is a {@link DataException} naming the file and what is wrong.
 */
public final class IdxReader {

    private static final int UNSIGNED_BYTE = 0x08;

    /** An IDX file's dimensions and its data, uncompressed, header included in {@code fileBytes}. */
    public record Idx(int[] dims, byte[] data, byte[] fileBytes) {}

    private IdxReader() {}

    /** The uncompressed bytes of {@code file}, gunzipped when it starts with the gzip magic number. */
    public static byte[] uncompressed(Path file) {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (IOException e) {
            throw new DataException("cannot read " + file + ": " + e.getMessage());
        }
        return uncompressed(file.toString(), bytes);
    }

    /** {@code bytes} gunzipped when they start with the gzip magic number; {@code name} says whose in a message. */
    static byte[] uncompressed(String name, byte[] bytes) {
        if (bytes.length < 2 || (bytes[0] & 0xff) != 0x1f || (bytes[1] & 0xff) != 0x8b) {
            return bytes;
        }
        try (InputStream gz = new GZIPInputStream(new ByteArrayInputStream(bytes), 1 << 16)) {
            ByteArrayOutputStream out = new ByteArrayOutputStream(bytes.length * 4);
            gz.transferTo(out);
            return out.toByteArray();
        } catch (ZipException | EOFException e) {
            throw new DataException(name + " is a damaged gzip file (" + e.getMessage()
                    + "); delete it so it is fetched again, or point --data at good files");
        } catch (IOException e) {
            throw new DataException("cannot unpack " + name + ": " + e.getMessage());
        }
    }

    /** Reads {@code file}, which must have {@code expectedDims} dimensions. */
    public static Idx read(Path file, int expectedDims) {
        return parse(file.toString(), uncompressed(file), expectedDims);
    }

    static Idx parse(String name, byte[] bytes, int expectedDims) {
        if (bytes.length < 4) {
            throw new DataException(name + " is not an IDX file: it has only " + bytes.length + " bytes");
        }
        if (bytes[0] != 0 || bytes[1] != 0) {
            throw new DataException(name + " is not an IDX file: its magic number does not start with two zero bytes");
        }
        if (bytes[2] != UNSIGNED_BYTE) {
            throw new DataException(name + " holds element type 0x" + Integer.toHexString(bytes[2] & 0xff)
                    + ", but Fashion-MNIST files hold unsigned bytes (0x08)");
        }
        int dims = bytes[3] & 0xff;
        if (dims != expectedDims) {
            throw new DataException(name + " has " + dims + " dimensions where " + expectedDims + " were expected"
                    + " (images have 3, labels 1): is it the right file?");
        }
        int header = 4 + 4 * dims;
        if (bytes.length < header) {
            throw new DataException(name + " ends inside its header");
        }
        ByteBuffer buf = ByteBuffer.wrap(bytes);
        int[] shape = new int[dims];
        long size = 1;
        for (int i = 0; i < dims; i++) {
            shape[i] = buf.getInt(4 + 4 * i);
            if (shape[i] <= 0) {
                throw new DataException(name + ": dimension " + i + " is " + shape[i] + ", not a positive size");
            }
            size *= shape[i];
        }
        if (bytes.length - header != size) {
            throw new DataException(name + ": the header promises " + Arrays.toString(shape) + " = " + size
                    + " bytes of data but the file has " + (bytes.length - header)
                    + "; the file is truncated or damaged, delete it so it is fetched again");
        }
        return new Idx(shape, Arrays.copyOfRange(bytes, header, bytes.length), bytes);
    }
}
