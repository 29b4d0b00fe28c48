package org.multigpulab.lessons.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.multigpulab.core.Synthetic;
import org.multigpulab.device.Availability;
import org.multigpulab.device.Backends;
import org.multigpulab.device.testing.Prerequisite;

/**
 * The GPU check rehearsed on this machine (scripts/gpu/, README "GPU day"): {@code prepare.sh --rehearse} packs
 * what the build just made, within the bound of what travels to the GPU machine, and {@code check.sh --rehearse}
 * runs every step on the pack with PoCL for the GPU and Debian's python3-torch for the machine's PyTorch, on a
 * slice. Runs after {@code package} (failsafe), when the jars it packs exist.
 */
class GpuRehearsalIT {

    private static final Path ROOT = Path.of("").toAbsolutePath().getParent();
    private static final double BOUND_MIB = 56;

    @TempDir
    Path out;

    @Test
    void theCheckRunsOnItsPackWithinTheBound() throws Exception {
        Availability opencl = Backends.find("opencl").availability();
        Prerequisite.require("opencl", opencl.available(), opencl.reason());
        Synthetic.realDataDir();
        Prerequisite.require("torch", pythonWithTorch(), "no python3 here imports torch");
        Path pack = ROOT.resolve("lessons/target/gpu-rehearsal");

        Run prepare = run(pack, "scripts/gpu/prepare.sh", "--no-build", "--rehearse");
        assertEquals(0, prepare.exit(), prepare.output());
        Matcher total = Pattern.compile("total\\s+([0-9.]+) MiB").matcher(prepare.output());
        assertTrue(total.find(), prepare.output());
        assertTrue(Double.parseDouble(total.group(1)) <= BOUND_MIB, prepare.output());

        Run check = run(pack, "scripts/gpu/check.sh", "--rehearse");
        assertEquals(0, check.exit(), check.output());
        String summary = Files.readString(out.resolve("summary.txt"));
        assertTrue(summary.contains(" 0 tests failed"), summary);
        assertTrue(summary.contains("updates, opencl against PyTorch   worst"), summary);
        assertTrue(summary.contains("simulated 1× H200"), summary);
        assertTrue(summary.contains("its longest kernels, s in all    "), summary);
        assertTrue(summary.contains("ms of kernels in"), summary);
        assertTrue(summary.contains("a step, against its kernels"), summary);
        assertTrue(summary.contains("djl on CUDA: "), summary);
        assertTrue(summary.matches("(?s).*ResNet-18 step, opencl +\\d+\\.\\d ms at batch 16.*"), summary);
        assertTrue(summary.matches("(?s).*ResNet-18 step, PyTorch \\(cuDNN\\) +\\d+\\.\\d ms at batch 16.*"), summary);
        assertTrue(summary.contains("  opencl / PyTorch"), summary);
        try (Stream<Path> files = Files.list(out)) {
            List<Path> back = files.toList();
            // what the device tool brings back: at most 8 files of at most 16 MiB
            assertTrue(back.size() <= 8, back.toString());
            for (Path f : back) {
                assertTrue(Files.size(f) <= 16L << 20, f + " has " + Files.size(f) + " bytes");
            }
        }
    }

    private record Run(int exit, String output) {}

    private Run run(Path pack, String... command) throws IOException, InterruptedException {
        ProcessBuilder builder = new ProcessBuilder(command).directory(ROOT.toFile());
        Map<String, String> env = builder.environment();
        env.put("GPU_PACK", pack.toString());
        env.put("OUT", out.toString());
        File log = pack.resolveSibling("gpu-rehearsal-" + Path.of(command[0]).getFileName() + ".log")
                .toFile();
        Process process = builder.redirectErrorStream(true).redirectOutput(log).start();
        int exit = process.waitFor();
        return new Run(exit, Files.readString(log.toPath()));
    }

    private static boolean pythonWithTorch() throws InterruptedException {
        for (String python : List.of("python3", "/usr/bin/python3")) {
            try {
                if (new ProcessBuilder(python, "-c", "import torch")
                                .redirectErrorStream(true)
                                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                                .start()
                                .waitFor()
                        == 0) {
                    return true;
                }
            } catch (IOException e) {
                // no such interpreter: try the next
            }
        }
        return false;
    }
}
