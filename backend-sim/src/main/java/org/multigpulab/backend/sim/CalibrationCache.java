package org.multigpulab.backend.sim;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.CodeSource;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Stream;
import org.multigpulab.device.Device;
import org.multigpulab.device.Timeline;
import org.multigpulab.device.io.WholeFile;

/**
 * Host calibrations kept per machine, so that a run does not pay for measuring what the last one measured. A
 * calibration belongs to one device on one processor with one build of its kernels in one JVM configured one
 * way (the vector width of {@code -XX:MaxVectorSize} changes the kernels' speed): all of that, and the list of
 * cases measured, is the key, and a file is found by the key's SHA-256. A file that cannot be read is measured
 * again and replaced; one is written whole or not at all ({@link WholeFile}).
 */
final class CalibrationCache {

    private final Path folder;

    CalibrationCache(Path folder) {
        this.folder = folder;
    }

    /** The lab's cache folder: {@code $XDG_CACHE_HOME/multigpu-lab/calibration}, else under {@code ~/.cache}. */
    static Path defaultFolder() {
        String xdg = System.getenv("XDG_CACHE_HOME");
        Path base = xdg != null && !xdg.isBlank() ? Path.of(xdg) : Path.of(System.getProperty("user.home"), ".cache");
        return base.resolve("multigpu-lab").resolve("calibration");
    }

    /** Where the calibration of {@code physical} is kept. */
    Path file(Device physical) {
        return file(physical, key(physical));
    }

    private Path file(Device physical, String key) {
        return folder.resolve(physical.id().toString().replace(':', '-') + "-" + digest(key) + ".properties");
    }

    /** The calibration of {@code physical} from the cache, or measured now and stored. */
    Calibrated calibrate(Device physical) {
        String key = key(physical);
        Path file = file(physical, key);
        if (Files.isRegularFile(file)) {
            try {
                return new Calibrated(read(file), true, file);
            } catch (IOException | RuntimeException unreadable) {
                // measured again below, and the file replaced
            }
        }
        HostCalibration measured = HostCalibration.measure(physical);
        try {
            write(file, measured, key);
        } catch (IOException e) {
            // a cache that cannot be written costs the next run its measurement, nothing else
            return new Calibrated(measured, false, null);
        }
        return new Calibrated(measured, false, file);
    }

    /** A calibration, whether it came from the cache, and the file that holds it (null if none could be written). */
    record Calibrated(HostCalibration calibration, boolean cached, Path file) {

        /** For the run report: what was measured on {@code physical}, and where it came from. */
        Timeline.Calibration report(Device physical) {
            List<Timeline.KernelCost> kernels = calibration.kernels().entrySet().stream()
                    .map(e -> new Timeline.KernelCost(
                            e.getKey(),
                            e.getValue().fixedSec(),
                            rate(e.getValue().secPerFlop()),
                            rate(e.getValue().secPerByte())))
                    .toList();
            List<Timeline.MeasuredSizes> tables = calibration.tables().entrySet().stream()
                    .map(e -> new Timeline.MeasuredSizes(
                            e.getKey(),
                            HostCalibration.sizeUnit(e.getKey()),
                            e.getValue().work(),
                            e.getValue().seconds()))
                    .toList();
            return new Timeline.Calibration(
                    physical.id() + " (" + physical.info().description() + ")",
                    cached,
                    file == null ? null : file.toString(),
                    calibration.measureSec(),
                    tables,
                    kernels);
        }

        private static Double rate(double secondsPer) {
            return secondsPer > 0 ? 1 / secondsPer : null;
        }
    }

    /** Everything a calibration depends on, one fact per line. */
    static String key(Device physical) {
        Map<String, String> key = new LinkedHashMap<>();
        key.put("device", physical.id() + ": " + physical.info().description());
        key.put("processor", processor());
        key.put("cores", String.valueOf(Runtime.getRuntime().availableProcessors()));
        key.put("jvm", System.getProperty("java.vm.name") + " " + System.getProperty("java.vm.version"));
        key.put(
                "jvm options",
                String.join(" ", ManagementFactory.getRuntimeMXBean().getInputArguments()));
        key.put("kernels", codeOf(physical.getClass()));
        key.put("calibration", codeOf(CalibrationCases.class));
        StringBuilder text = new StringBuilder();
        key.forEach((k, v) -> text.append(k).append(": ").append(v).append('\n'));
        return text.toString();
    }

    /** The processor's model as Linux names it, else the architecture. */
    private static String processor() {
        Path cpuinfo = Path.of("/proc/cpuinfo");
        if (Files.isReadable(cpuinfo)) {
            try (Stream<String> lines = Files.lines(cpuinfo)) {
                String found = String.join(
                        "; ",
                        lines.filter(l -> l.matches("(model name|cpu family|model|stepping)\\s*:.*"))
                                .limit(4)
                                .toList());
                if (!found.isEmpty()) {
                    return found;
                }
            } catch (IOException | UncheckedIOException e) {
                // fall back to the architecture
            }
        }
        return System.getProperty("os.arch");
    }

    /** Which build of a class's code: the jar or folder it was loaded from, its size and time of change. */
    private static String codeOf(Class<?> type) {
        CodeSource source = type.getProtectionDomain().getCodeSource();
        if (source == null) {
            return type.getName();
        }
        try {
            Path path = Path.of(source.getLocation().toURI());
            Path file = Files.isDirectory(path) ? path.resolve(type.getName().replace('.', '/') + ".class") : path;
            return path + " " + Files.size(file) + " bytes, changed " + Files.getLastModifiedTime(file);
        } catch (IOException | URISyntaxException | RuntimeException e) {
            return source.getLocation().toString();
        }
    }

    private static String digest(String text) {
        try {
            byte[] hash = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(hash, 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    private static HostCalibration read(Path file) throws IOException {
        Properties p = new Properties();
        try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            p.load(in);
        }
        Map<String, KernelCost> kernels = new LinkedHashMap<>();
        Map<String, CostTable> tables = new LinkedHashMap<>();
        for (String name : p.stringPropertyNames()) {
            if (name.startsWith("kernel.")) {
                kernels.put(name.substring("kernel.".length()), cost(p.getProperty(name)));
            } else if (name.startsWith("table.")) {
                tables.put(name.substring("table.".length()), CostTable.parse(p.getProperty(name)));
            }
        }
        return new HostCalibration(
                tables,
                kernels,
                cost(p.getProperty("copy")),
                cost(p.getProperty("upload")),
                Double.parseDouble(p.getProperty("measure_sec")));
    }

    private static KernelCost cost(String text) {
        String[] parts = text.split(",");
        return new KernelCost(
                Double.parseDouble(parts[0].strip()),
                Double.parseDouble(parts[1].strip()),
                Double.parseDouble(parts[2].strip()));
    }

    private static void write(Path file, HostCalibration c, String key) throws IOException {
        Files.createDirectories(file.getParent());
        StringBuilder text = new StringBuilder();
        text.append(
                        "# multigpu-lab host calibration: per layer and element-wise kernel, size:seconds measured (size in")
                .append(" FLOPs for a layer, bytes else); per kernel kind, fixed seconds per call, seconds per FLOP,")
                .append(" seconds per byte\n");
        key.lines().forEach(line -> text.append("# ").append(line).append('\n'));
        text.append(String.format(Locale.ROOT, "measure_sec=%.4f%n", c.measureSec()));
        c.tables()
                .forEach((shape, table) -> text.append("table.")
                        .append(shape)
                        .append('=')
                        .append(table.text())
                        .append('\n'));
        c.kernels()
                .forEach((kind, cost) ->
                        text.append("kernel.").append(kind).append('=').append(line(cost)));
        text.append("copy=").append(line(c.copy()));
        text.append("upload=").append(line(c.upload()));
        WholeFile.write(file, text.toString().getBytes(StandardCharsets.UTF_8));
    }

    private static String line(KernelCost cost) {
        return String.format(Locale.ROOT, "%.6g, %.6g, %.6g%n", cost.fixedSec(), cost.secPerFlop(), cost.secPerByte());
    }
}
