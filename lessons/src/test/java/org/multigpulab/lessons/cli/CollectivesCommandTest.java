package org.multigpulab.lessons.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code ./lab collectives}: rows shaped as nccl-tests prints them, its bus bandwidth, JSON, and bad input. */
class CollectivesCommandTest {

    @TempDir
    Path dir;

    /**
     * {@code ./lab collectives ARGS} run in this JVM, what it prints captured. picocli's writers wrap the
     * {@code System.out} and {@code System.err} of the moment the command line is made, so those are replaced
     * first.
     */
    static LabRunner.Result collectives(String... args) {
        PrintStream stdout = System.out, stderr = System.err;
        ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        try {
            String[] argv = new String[args.length + 1];
            argv[0] = "collectives";
            System.arraycopy(args, 0, argv, 1, args.length);
            int exit = Lab.commandLine().execute(argv);
            System.out.flush();
            System.err.flush();
            return new LabRunner.Result(
                    exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
        } finally {
            System.setOut(stdout);
            System.setErr(stderr);
        }
    }

    /** The rows of a run: every line that is not a comment, split into its columns. */
    private static List<String[]> rows(String out) {
        return out.lines()
                .filter(l -> !l.startsWith("#") && !l.isBlank())
                .map(l -> l.trim().split("\\s+"))
                .toList();
    }

    @Test
    void anAllreduceSweepPrintsOneNcclTestsRowPerSize() {
        LabRunner.Result r =
                collectives("--op", "allreduce", "--gpus", "8", "--profile", "a100", "-b", "8", "-e", "1G", "-f", "4");
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("#       size         count      type   redop    root     time   algbw   busbw"));
        List<String[]> rows = rows(r.out());
        assertEquals(14, rows.size(), r.out()); // 8 × 4^k up to 1 GiB: 8 … 512 MiB
        long size = 8;
        for (String[] row : rows) {
            assertEquals(8, row.length, Arrays.toString(row));
            assertEquals(size, Long.parseLong(row[0]));
            assertEquals(size / 4, Long.parseLong(row[1]));
            assertEquals(List.of("float", "sum", "-1"), List.of(row[2], row[3], row[4]));
            double algbw = size / (Double.parseDouble(row[5]) * 1e-6) / 1e9;
            assertEquals(algbw, Double.parseDouble(row[6]), 0.01 + 0.01 * algbw);
            assertEquals(algbw * 2 * 7 / 8, Double.parseDouble(row[7]), 0.01 + 0.01 * algbw);
            size *= 4;
        }
    }

    @ParameterizedTest
    @CsvSource({"reducescatter,sum,-1,0.875,8", "allgather,none,-1,0.875,8", "broadcast,none,0,1,1", "reduce,sum,0,1,1"
    })
    void eachCollectiveHasNcclTestsBusBandwidthRedopRootAndCount(
            String op, String redop, String root, double busFactor, int countDivisor) {
        LabRunner.Result r = collectives("--op", op, "--gpus", "8", "-b", "1M", "-e", "4M");
        assertEquals(0, r.exit(), r.err());
        List<String[]> rows = rows(r.out());
        assertEquals(3, rows.size(), r.out());
        for (String[] row : rows) {
            assertEquals(List.of(redop, root), List.of(row[3], row[4]));
            assertEquals(Long.parseLong(row[0]) / 4 / countDivisor, Long.parseLong(row[1]));
            double algbw = Double.parseDouble(row[6]);
            assertEquals(algbw * busFactor, Double.parseDouble(row[7]), 0.011);
        }
    }

    /** nccl-tests' -g: one thread launching on all eight GPUs holds small sizes up, not large ones. */
    @Test
    void oneThreadForEveryGpuSlowsSmallSizesOnly() {
        String[] sweep = {"--gpus", "8", "--profile", "h100", "-b", "8", "-e", "1G", "-f", "1024"};
        List<String[]> perProcess = rows(collectives(sweep).out());
        String[] oneThreadSweep = Arrays.copyOf(sweep, sweep.length + 2);
        oneThreadSweep[sweep.length] = "-g";
        oneThreadSweep[sweep.length + 1] = "8";
        List<String[]> oneThread = rows(collectives(oneThreadSweep).out());
        assertEquals(3, oneThread.size()); // 8 B, 8 KiB, 8 MiB
        assertTrue(Double.parseDouble(oneThread.get(0)[5])
                > Double.parseDouble(perProcess.get(0)[5]));
        assertEquals(perProcess.getLast()[5], oneThread.getLast()[5]);
    }

    /** Sizes that round to no float, and one GPU, move nothing: 0 GB/s, as nccl-tests prints it, never NaN. */
    @Test
    void rowsThatMoveNothingReadZeroGigabytesPerSecond() {
        LabRunner.Result r = collectives("-b", "1", "-e", "4", "--gpus", "1");
        assertEquals(0, r.exit(), r.err());
        assertFalse(r.out().contains("NaN"), r.out());
        List<String[]> rows = rows(r.out());
        assertEquals(3, rows.size(), r.out());
        for (String[] row : rows.subList(0, 2)) {
            assertEquals("0", row[0], r.out());
            assertEquals(0.0, Double.parseDouble(row[6]), r.out());
            assertEquals(0.0, Double.parseDouble(row[7]), r.out());
        }
        assertTrue(r.out().contains("# Avg bus bandwidth    : 0.0000"), r.out());
    }

    @Test
    void jsonHoldsTheSameRows() throws IOException {
        Path json = dir.resolve("rows.json");
        LabRunner.Result r = collectives(
                "--gpus", "16", "--nodes", "2", "--profile", "h100", "-b", "8", "-e", "8G", "--json", json.toString());
        assertEquals(0, r.exit(), r.err());
        JsonObject sweep = JsonParser.parseString(Files.readString(json)).getAsJsonObject();
        assertEquals(rows(r.out()).size(), sweep.getAsJsonArray("rows").size());
        assertEquals(31, sweep.getAsJsonArray("rows").size());
        assertTrue(sweep.get("system").getAsString().contains("2 nodes"), sweep.toString());
        JsonObject last = sweep.getAsJsonArray("rows").get(30).getAsJsonObject();
        assertEquals(8L << 30, last.get("size").getAsLong());
        assertFalse(last.get("algorithm").getAsString().isEmpty());
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "--op allsum|unknown --op 'allsum'",
                "-b 2G -e 1G|-b 2G is larger than -e 1G",
                "--gpus 6 --nodes 4|do not split evenly over 4 nodes",
                "--profile b300|unknown device profile 'b300'",
                "-b 8 -e 1M -f 1|-f must be 2 or more",
                "-b 1x|-b must be a size in bytes",
                "--topology nvlink3 --algo nvls|nvls needs NVSwitches that add",
                "-b 1 -e 1G -i 1|more than 10000 sizes",
                "--gpus 0|--gpus must be 1 or more, not 0",
                "--gpus 8 -g 9|--gpus-per-thread must be from 1 to the 8 GPUs of a node, not 9",
                "--nic hdr|one node crosses none; give --nodes 2 or more, or leave --nic out"
            })
    void badInputIsOneClearLineAndExitTwo(String args, String message) {
        LabRunner.Result r = collectives(args.split(" "));
        assertEquals(Lab.EXIT_USAGE, r.exit(), r.out());
        List<String> lines = r.err().lines().toList();
        assertEquals(1, lines.size(), r.err());
        assertTrue(lines.getFirst().startsWith("error: ") && lines.getFirst().contains(message), r.err());
    }
}
