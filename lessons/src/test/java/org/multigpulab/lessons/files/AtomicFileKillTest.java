package org.multigpulab.lessons.files;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.multigpulab.core.model.HostTensor;
import org.multigpulab.lessons.errors.UserError;

/**
 * Kills a process while it writes a large safetensors file over an existing one through {@link AtomicFile}, at
 * random moments, and checks each time that the target is then the version it replaced or the version being
 * written, byte for byte. On Linux {@link Process#destroyForcibly()} is SIGKILL: no finally block or shutdown
 * hook of the writer runs. The random delays only choose when to kill; the verdict comes from the file and
 * the versions the writer reported. {@code -Datomicfile.kill.seed=S} repeats a run.
 */
class AtomicFileKillTest {

    private static final int KILLS = 10;
    /** A kill lands up to this long after the writer reported its first whole version. */
    private static final int MAX_DELAY_MS = 400;
    /** Bounds a writer that never reports, so a broken one fails the test instead of hanging it. */
    private static final int FIRST_REPORT_LIMIT_S = 60;

    private static final String REPORT = "wrote ";

    @TempDir
    Path dir;

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void aKilledWriterLeavesTheOldVersionOrTheNewOneWhole() throws Exception {
        long seed =
                Long.getLong("atomicfile.kill.seed", ThreadLocalRandom.current().nextLong());
        Random random = new Random(seed);
        Path out = Files.createDirectory(dir.resolve("out"));
        Path target = out.resolve("params.safetensors");
        SafeTensors.write(target, VersionWriter.tensors(0));
        int version = 0;
        for (int kill = 1; kill <= KILLS; kill++) {
            int delayMs = random.nextInt(MAX_DELAY_MS);
            String run = "kill " + kill + " of " + KILLS + " (seed " + seed + ", " + delayMs
                    + " ms after the writer's first report)";
            int reported = killWhileWriting(target, version, delayMs, run);
            int found = versionAt(target, run);
            assertTrue(
                    found == reported || found == reported + 1,
                    run + ": the target holds version " + found + " but the last version the writer reported was "
                            + reported + "; it must be that or the next");
            List<String> leftovers = leftovers(out, target);
            String temporary = "." + target.getFileName();
            assertTrue(
                    leftovers.stream().allMatch(n -> n.startsWith(temporary) && n.endsWith(".part")),
                    run + ": besides the target the folder may hold only temporaries of killed writes, but holds "
                            + leftovers);
            version = found;
        }
        SafeTensors.write(target, VersionWriter.tensors(version + 1));
        assertEquals(
                version + 1,
                versionAt(target, "the write after the kills, beside the leftovers " + leftovers(out, target)));
    }

    /**
     * Starts a writer over {@code target}, which holds version {@code current}, kills it {@code delayMs} after
     * it reported its first version, and returns the last version it reported.
     */
    private int killWhileWriting(Path target, int current, int delayMs, String run) throws Exception {
        try (ChildJvm writer = ChildJvm.start(
                List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"),
                VersionWriter.class.getName(),
                List.of(target.toString(), Integer.toString(current + 1)),
                dir.resolve("writer.log"))) {
            String first = writer.readLine(FIRST_REPORT_LIMIT_S, run);
            if (first == null) {
                fail(run + ": the writer ended before writing a version: " + writer.errors());
            }
            Thread.sleep(delayMs);
            assertTrue(writer.isAlive(), run + ": the writer stopped before the kill: " + writer.errors());
            writer.kill();
            List<String> lines =
                    Stream.concat(Stream.of(first), writer.rest().stream()).toList();
            String last = lines.getLast();
            assertTrue(last.startsWith(REPORT), run + ": the writer printed " + lines);
            return Integer.parseInt(last.substring(REPORT.length()));
        }
    }

    /** The version {@code file} holds, after checking it is byte for byte what writing that version gives. */
    private int versionAt(Path file, String run) throws IOException {
        List<HostTensor> tensors;
        try {
            tensors = SafeTensors.read(file);
        } catch (UserError e) {
            throw new AssertionError(run + ": the target is torn: " + e.getMessage(), e);
        }
        int version = (int) tensors.getFirst().values()[0];
        Path whole = dir.resolve("whole.safetensors");
        SafeTensors.write(whole, VersionWriter.tensors(version));
        assertEquals(
                -1L,
                Files.mismatch(whole, file),
                run + ": the target says version " + version + " but differs from a whole file of that version");
        return version;
    }

    /** The names in {@code folder} other than {@code target}'s. */
    private static List<String> leftovers(Path folder, Path target) throws IOException {
        try (Stream<Path> files = Files.list(folder)) {
            return files.filter(f -> !f.equals(target))
                    .map(f -> f.getFileName().toString())
                    .sorted()
                    .toList();
        }
    }
}
