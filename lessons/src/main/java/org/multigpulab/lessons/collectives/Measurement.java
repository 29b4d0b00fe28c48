package org.multigpulab.lessons.collectives;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.multigpulab.device.CollectiveCostModel.Collective;
import org.multigpulab.device.CollectiveCostModel.SystemSpec;

/**
 * A published nccl-tests measurement of a real system, kept in this module's resources under
 * {@code nccl-tests/calibration/} (what a model may be fitted on) or {@code nccl-tests/validation/} (what it is
 * judged by; nccl-tests/README.md states the split). {@code # key: value} lines say what the system is, where the
 * figures come from ({@code source}, {@code nccl}: the version the output printed, {@code gpu}, {@code command}),
 * what the model lacks for it ({@code needs}), how to simulate it ({@code op}, {@code gpus}, {@code nodes},
 * {@code profile}, {@code topology}, {@code nic}, {@code nics-per-node}, {@code gpus-per-thread}: the command's
 * {@code -g}, 1 where absent), and {@code bands-from}, the size from which
 * the error bands count its rows (when the source's transport is one the model has no figures for); then one row per
 * size, bytes and either the bus bandwidth in GB/s or the time in µs, as the last comment line names it.
 */
public record Measurement(
        String name,
        String system,
        String source,
        String nccl,
        Collective op,
        SystemSpec spec,
        long bandsFrom,
        List<Point> points) {

    /** One measured size: bytes and the bus bandwidth nccl-tests printed or that follows from its time. */
    public record Point(long bytes, double busbw) {}

    private static final String DIR = "/org/multigpulab/lessons/nccl-tests/";

    /** The two sets the measurements are split into, each a folder with its own index. */
    public enum Set {
        /** What a model may be fitted on. */
        CALIBRATION,
        /** What a model is judged by, never fitted on. */
        VALIDATION;

        /** The set's folder under nccl-tests/. */
        public String folder() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** The calibration set, in its index's order. */
    public static List<Measurement> calibration() {
        return of(Set.CALIBRATION);
    }

    /** The validation set, in its index's order. */
    public static List<Measurement> validation() {
        return of(Set.VALIDATION);
    }

    /** Both sets: calibration first, then validation. */
    public static List<Measurement> all() {
        List<Measurement> out = new ArrayList<>(calibration());
        out.addAll(validation());
        return out;
    }

    /** Every measurement {@code set}'s index lists, in its order. */
    public static List<Measurement> of(Set set) {
        String dir = DIR + set.folder() + "/";
        List<Measurement> out = new ArrayList<>();
        for (String line : names(set)) {
            out.add(parse(line, lines(dir + line + ".txt")));
        }
        return out;
    }

    /** The names {@code set}'s index lists, in its order. */
    public static List<String> names(Set set) {
        return lines(DIR + set.folder() + "/index.txt").stream()
                .map(String::trim)
                .filter(line -> !line.isEmpty())
                .toList();
    }

    static Measurement parse(String name, List<String> lines) {
        Map<String, String> keys = new HashMap<>();
        List<String[]> rows = new ArrayList<>();
        String lastComment = "";
        for (String line : lines) {
            if (line.startsWith("#")) {
                lastComment = line;
                int colon = line.indexOf(':');
                String key = colon > 0 ? line.substring(1, colon).trim() : "";
                if (key.matches("[a-z-]+")) {
                    keys.putIfAbsent(key, line.substring(colon + 1).trim());
                }
            } else if (!line.isBlank()) {
                rows.add(line.trim().split("\\s+"));
            }
        }
        Collective op = Collective.named(keys.get("op"));
        int gpus = Integer.parseInt(keys.get("gpus"));
        SystemSpec spec = new SystemSpec(
                gpus,
                Integer.parseInt(keys.get("nodes")),
                keys.get("profile"),
                keys.get("topology"),
                keys.get("nic"),
                Integer.parseInt(keys.getOrDefault("nics-per-node", "0")),
                Integer.parseInt(keys.getOrDefault("gpus-per-thread", "1").split("\\s")[0]));
        boolean times = lastComment.contains("time(us)");
        List<Point> points = new ArrayList<>();
        for (String[] row : rows) {
            long bytes = Long.parseLong(row[0]);
            double value = Double.parseDouble(row[1]);
            double busbw = times ? bytes / (value * 1e-6) / 1e9 * op.busBandwidthFactor(gpus) : value;
            points.add(new Point(bytes, busbw));
        }
        return new Measurement(
                name,
                keys.get("system"),
                keys.get("source"),
                keys.get("nccl"),
                op,
                spec,
                keys.containsKey("bands-from") ? ByteSize.parse("bands-from", keys.get("bands-from")) : 0,
                List.copyOf(points));
    }

    private static List<String> lines(String resource) {
        try (InputStream in = Measurement.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("missing resource " + resource);
            }
            return new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))
                    .lines()
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
