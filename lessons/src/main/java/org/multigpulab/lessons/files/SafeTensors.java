package org.multigpulab.lessons.files;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParseException;
import com.google.gson.JsonParser;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.multigpulab.core.model.HostTensor;
import org.multigpulab.lessons.errors.UserError;

/**
 * Parameters as a safetensors file, the format {@code safetensors.torch.load_file} reads: an 8-byte
 * little-endian header length, a JSON header naming each tensor's dtype, shape and byte range, then the raw
 * little-endian data. Only F32 is written or read.
 */
public final class SafeTensors {

    private static final long MAX_HEADER = 100L << 20;

    private SafeTensors() {}

    /** Writes {@code tensors} to {@code file}, atomically. */
    public static void write(Path file, List<HostTensor> tensors) {
        byte[] bytes = encode(tensors, Map.of());
        AtomicFile.write(file, out -> out.write(bytes));
    }

    /**
     * The file's bytes for {@code tensors}, with {@code metadata} (string values, as the format requires) in the
     * header's {@code __metadata__} beside {@code format} and {@code producer}.
     */
    public static byte[] encode(List<HostTensor> tensors, Map<String, String> metadata) {
        JsonObject header = new JsonObject();
        JsonObject meta = new JsonObject();
        meta.addProperty("format", "pt");
        meta.addProperty("producer", "multigpu-lab");
        metadata.forEach(meta::addProperty);
        header.add("__metadata__", meta);
        long offset = 0;
        for (HostTensor t : tensors) {
            JsonObject entry = new JsonObject();
            entry.addProperty("dtype", t.integral() ? "I64" : "F32");
            JsonArray shape = new JsonArray();
            for (int d : t.shape()) {
                shape.add(d);
            }
            entry.add("shape", shape);
            JsonArray offsets = new JsonArray();
            offsets.add(offset);
            offset += (long) bytesPer(t.integral()) * t.size();
            offsets.add(offset);
            entry.add("data_offsets", offsets);
            header.add(t.name(), entry);
        }
        byte[] json = header.toString().getBytes(StandardCharsets.UTF_8);
        int padded = (json.length + 7) / 8 * 8; // the data starts 8-byte aligned
        ByteBuffer bytes =
                ByteBuffer.allocate(Math.toIntExact(8 + padded + offset)).order(ByteOrder.LITTLE_ENDIAN);
        bytes.putLong(padded).put(json);
        while (bytes.position() < 8 + padded) {
            bytes.put((byte) ' ');
        }
        for (HostTensor t : tensors) {
            if (t.integral()) {
                for (float v : t.values()) {
                    bytes.putLong((long) v);
                }
            } else {
                bytes.asFloatBuffer().put(t.values());
                bytes.position(bytes.position() + 4 * t.size());
            }
        }
        return bytes.array();
    }

    /** The bytes of one element: an I64's 8 or an F32's 4. */
    private static int bytesPer(boolean integral) {
        return integral ? Long.BYTES : Float.BYTES;
    }

    /** What a file holds: its tensors, in the order of their data, and the header's {@code __metadata__}. */
    public record Contents(List<HostTensor> tensors, Map<String, String> metadata) {}

    /** Reads every tensor of {@code file}, in the order of their data. */
    public static List<HostTensor> read(Path file) {
        return decode(file, readBytes(file)).tensors();
    }

    /** The bytes of {@code file}; a missing or unreadable file is the user's error. */
    public static byte[] readBytes(Path file) {
        try {
            return Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            throw new UserError(file + ": no such file");
        } catch (IOException e) {
            throw new UserError(file + ": cannot read it (" + e.getMessage() + ")");
        }
    }

    /** The tensors and metadata in {@code bytes}, read from {@code file} (named in errors). */
    public static Contents decode(Path file, byte[] bytes) {
        if (bytes.length < 8) {
            throw corrupt(file, "it is " + bytes.length + " bytes long, shorter than the 8-byte header length");
        }
        ByteBuffer buf = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        long headerLength = buf.getLong(0);
        if (headerLength <= 0 || headerLength > MAX_HEADER || 8 + headerLength > bytes.length) {
            throw corrupt(
                    file,
                    "its header length " + headerLength + " does not fit in a file of " + bytes.length + " bytes");
        }
        int dataStart = (int) (8 + headerLength);
        JsonObject header;
        try {
            JsonElement parsed =
                    JsonParser.parseString(new String(bytes, 8, (int) headerLength, StandardCharsets.UTF_8));
            if (!parsed.isJsonObject()) {
                throw corrupt(file, "its header is not a JSON object");
            }
            header = parsed.getAsJsonObject();
        } catch (JsonParseException e) {
            throw corrupt(file, "its header is not valid JSON");
        }
        Map<Long, HostTensor> byOffset = new TreeMap<>();
        Map<String, String> metadata = new LinkedHashMap<>();
        for (Map.Entry<String, JsonElement> e : header.entrySet()) {
            if (e.getKey().equals("__metadata__")) {
                metadata = metadata(file, e.getValue());
                continue;
            }
            HostTensor t = tensor(file, e.getKey(), e.getValue(), bytes, dataStart);
            long begin = e.getValue()
                    .getAsJsonObject()
                    .getAsJsonArray("data_offsets")
                    .get(0)
                    .getAsLong();
            if (t.size() > 0 && byOffset.put(begin, t) != null) {
                throw corrupt(file, "two tensors start at byte " + begin);
            }
        }
        return new Contents(List.copyOf(byOffset.values()), Map.copyOf(metadata));
    }

    private static Map<String, String> metadata(Path file, JsonElement value) {
        if (!value.isJsonObject()) {
            throw corrupt(file, "its __metadata__ is not a JSON object");
        }
        Map<String, String> metadata = new LinkedHashMap<>();
        for (Map.Entry<String, JsonElement> m : value.getAsJsonObject().entrySet()) {
            if (!m.getValue().isJsonPrimitive()
                    || !m.getValue().getAsJsonPrimitive().isString()) {
                throw corrupt(file, "its __metadata__ entry " + m.getKey() + " is not a string");
            }
            metadata.put(m.getKey(), m.getValue().getAsString());
        }
        return metadata;
    }

    private static HostTensor tensor(Path file, String name, JsonElement value, byte[] bytes, int dataStart) {
        try {
            JsonObject entry = value.getAsJsonObject();
            String dtype = entry.get("dtype").getAsString();
            if (!dtype.equals("F32") && !dtype.equals("I64")) {
                throw corrupt(
                        file,
                        "tensor " + name + " is " + dtype + "; only F32 parameters and buffers and I64 counters can be"
                                + " loaded");
            }
            boolean integral = dtype.equals("I64");
            JsonArray shapeJson = entry.getAsJsonArray("shape");
            int[] shape = new int[shapeJson.size()];
            long size = 1;
            for (int i = 0; i < shape.length; i++) {
                shape[i] = shapeJson.get(i).getAsInt();
                if (shape[i] < 0) {
                    throw corrupt(file, "tensor " + name + " has a negative dimension");
                }
                size *= shape[i];
            }
            JsonArray offsets = entry.getAsJsonArray("data_offsets");
            long begin = offsets.get(0).getAsLong(), end = offsets.get(1).getAsLong();
            if (begin < 0 || end < begin || dataStart + end > bytes.length) {
                throw corrupt(
                        file, "tensor " + name + " claims bytes " + begin + "…" + end + " past the end of the file");
            }
            if (end - begin != bytesPer(integral) * size) {
                throw corrupt(
                        file,
                        "tensor " + name + " has shape " + Arrays.toString(shape) + " but " + (end - begin)
                                + " bytes of data");
            }
            float[] values = new float[(int) size];
            ByteBuffer data = ByteBuffer.wrap(bytes, (int) (dataStart + begin), (int) (end - begin))
                    .order(ByteOrder.LITTLE_ENDIAN);
            if (integral) {
                for (int i = 0; i < values.length; i++) {
                    values[i] = data.getLong();
                }
            } else {
                data.asFloatBuffer().get(values);
            }
            return new HostTensor(name, shape, values, integral);
        } catch (IllegalStateException
                | NullPointerException
                | UnsupportedOperationException
                | IndexOutOfBoundsException e) {
            throw corrupt(file, "the header entry of tensor " + name + " lacks dtype, shape or data_offsets");
        }
    }

    /**
     * Checks that {@code tensors}, read from {@code file} given with {@code option} ({@code --load}), are exactly
     * the named tensors with the shapes of {@code expected}, and returns them in that order; else a message naming
     * what the file lacks, what it has beyond them and the first shape that differs, and {@code hint} after it.
     */
    public static List<HostTensor> matching(
            String option, Path file, List<HostTensor> tensors, List<String> names, List<int[]> shapes, String hint) {
        Map<String, HostTensor> byName = new LinkedHashMap<>();
        tensors.forEach(t -> byName.put(t.name(), t));
        List<String> missing =
                names.stream().filter(n -> !byName.containsKey(n)).toList();
        List<String> extra =
                byName.keySet().stream().filter(n -> !names.contains(n)).toList();
        List<String> differences = new ArrayList<>();
        if (!missing.isEmpty()) {
            differences.add(listed(missing) + " missing");
        }
        if (!extra.isEmpty()) {
            differences.add(listed(extra) + " the model does not have");
        }
        if (differences.isEmpty()) {
            for (int i = 0; i < names.size(); i++) {
                HostTensor t = byName.get(names.get(i));
                if (!Arrays.equals(t.shape(), shapes.get(i))) {
                    differences.add("tensor " + t.name() + " has shape " + t.shapeText() + " where the model's is "
                            + Arrays.toString(shapes.get(i)));
                    break;
                }
            }
        }
        if (!differences.isEmpty()) {
            throw new UserError(option + " " + file + " does not fit the model: " + String.join("; ", differences)
                    + (hint.isEmpty() ? "" : ". " + hint));
        }
        return names.stream().map(byName::get).toList();
    }

    /** {@code 3 tensors (a, b, c)}, or the first five and how many more. */
    private static String listed(List<String> names) {
        String shown = String.join(", ", names.subList(0, Math.min(5, names.size())));
        return names.size()
                + (names.size() == 1 ? " tensor (" : " tensors (")
                + shown
                + (names.size() > 5 ? ", … and " + (names.size() - 5) + " more)" : ")");
    }

    private static UserError corrupt(Path file, String why) {
        return new UserError(file + " is not a readable safetensors file: " + why);
    }
}
