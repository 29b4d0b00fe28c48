package org.multigpulab.lessons.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code scripts/pytorch-referee.py} as the referee tests run it: the python that imports torch, a run of the script,
 * and its files read back. Stateless.
 */
final class PyTorchReferee {

    private static final Path SCRIPTS = Path.of("").toAbsolutePath().getParent().resolve("scripts");

    private PyTorchReferee() {}

    /** The first of {@code python3} on the path and Debian's {@code /usr/bin/python3} that imports torch. */
    static Optional<String> python() throws InterruptedException {
        for (String python : List.of("python3", "/usr/bin/python3")) {
            try {
                Process p = new ProcessBuilder(python, "-c", "import torch")
                        .redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                        .start();
                if (p.waitFor() == 0) {
                    return Optional.of(python);
                }
            } catch (IOException e) {
                // no such interpreter: try the next
            }
        }
        return Optional.empty();
    }

    /** Runs {@code pytorch-referee.py} with {@code args} in {@code python}; returns what it printed, and fails unless it exits 0. */
    static String run(String python, List<String> args) throws IOException, InterruptedException {
        return run(python, "pytorch-referee.py", args);
    }

    /** Runs {@code script} of {@code scripts/} with {@code args} in {@code python}, as {@link #run(String, List)}. */
    static String run(String python, String script, List<String> args) throws IOException, InterruptedException {
        List<String> command =
                new ArrayList<>(List.of(python, SCRIPTS.resolve(script).toString()));
        command.addAll(args);
        Process running = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(running.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, running.waitFor(), output);
        return output.strip();
    }

    /**
     * The tensors of a safetensors file by name, in the file's order, as doubles: F64 ones (the script's float64
     * run writes them, and {@code SafeTensors} reads only F32) exactly, F32 ones widened, counters (I64) as their values.
     */
    static Map<String, double[]> readAsDoubles(Path file) throws IOException {
        ByteBuffer bytes = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
        int headerLength = Math.toIntExact(bytes.getLong(0));
        JsonObject header = JsonParser.parseString(new String(bytes.array(), 8, headerLength, StandardCharsets.UTF_8))
                .getAsJsonObject();
        int dataStart = 8 + headerLength;
        Map<String, double[]> tensors = new LinkedHashMap<>();
        for (Map.Entry<String, JsonElement> e : header.entrySet()) {
            if (e.getKey().equals("__metadata__")) {
                continue;
            }
            JsonObject entry = e.getValue().getAsJsonObject();
            String dtype = entry.get("dtype").getAsString();
            int width = switch (dtype) {
                case "F64" -> 8;
                case "F32", "I32" -> 4;
                case "I64" -> 8;
                default -> throw new IllegalArgumentException(file + ": " + e.getKey() + " is " + dtype);
            };
            int begin = entry.getAsJsonArray("data_offsets").get(0).getAsInt();
            int end = entry.getAsJsonArray("data_offsets").get(1).getAsInt();
            double[] values = new double[(end - begin) / width];
            for (int i = 0; i < values.length; i++) {
                int at = dataStart + begin + i * width;
                values[i] = switch (dtype) {
                    case "F64" -> bytes.getDouble(at);
                    case "I64" -> bytes.getLong(at);
                    case "I32" -> bytes.getInt(at);
                    default -> bytes.getFloat(at);
                };
            }
            tensors.put(e.getKey(), values);
        }
        return tensors;
    }

    /** {@code ‖a − b‖}, in double precision. */
    static double norm(double[] a, double[] b) {
        assertEquals(b.length, a.length);
        double sum = 0;
        for (int i = 0; i < a.length; i++) {
            double d = a[i] - b[i];
            sum += d * d;
        }
        return Math.sqrt(sum);
    }
}
