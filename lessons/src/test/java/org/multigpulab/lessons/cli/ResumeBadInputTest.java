package org.multigpulab.lessons.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.multigpulab.core.Synthetic;
import org.multigpulab.core.model.LeNet;
import org.multigpulab.core.train.Checkpoint;
import org.multigpulab.lessons.files.CheckpointFile;
import org.multigpulab.lessons.files.SafeTensors;

/**
 * Bad checkpoints and checkpoint options given to {@code ./lab train}: one clear line, exit status 2, and no file
 * written or changed, not even the checkpoint named by both {@code --resume} and {@code --checkpoint}.
 */
class ResumeBadInputTest {

    @TempDir
    static Path dir;

    /** Option and value pairs, then {@code --quiet}. */
    private static final List<String> SLICE =
            List.of("--train-samples", "512", "--test-samples", "128", "--batch-size", "64", "--quiet");

    /** An MLP checkpoint after 1 epoch, then broken copies of it. */
    @BeforeAll
    static void checkpoints() throws IOException {
        Synthetic.realDataDir();
        List<String> args = new ArrayList<>(List.of(
                "train",
                "--model",
                "mlp",
                "--epochs",
                "1",
                "--plot-dir",
                dir.resolve("plots").toString(),
                "--checkpoint",
                dir.resolve("mlp.ckpt").toString()));
        args.addAll(SLICE);
        LabRunner.Result r = LabRunner.run(args.toArray(String[]::new));
        assertEquals(0, r.exit(), r.err());
        byte[] bytes = Files.readAllBytes(dir.resolve("mlp.ckpt"));
        Files.write(dir.resolve("truncated.ckpt"), Arrays.copyOf(bytes, bytes.length / 2));
        SafeTensors.Contents contents = SafeTensors.decode(dir.resolve("mlp.ckpt"), bytes);
        String json = contents.metadata().get(CheckpointFile.KEY);
        Files.write(
                dir.resolve("newer.ckpt"),
                SafeTensors.encode(
                        contents.tensors(),
                        Map.of(
                                CheckpointFile.KEY,
                                json.replace(
                                        "multigpu-lab/checkpoint/" + Checkpoint.SCHEMA,
                                        "multigpu-lab/checkpoint/" + (Checkpoint.SCHEMA + 1)))));
        SafeTensors.write(dir.resolve("params.safetensors"), new LeNet().initialState(0));
    }

    static Stream<Arguments> badInputs() {
        return Stream.of(
                Arguments.of(List.of("--model", "mlp", "--resume", "absent.ckpt"), "absent.ckpt: no such file"),
                Arguments.of(
                        List.of("--model", "mlp", "--resume", "truncated.ckpt"), "not a readable safetensors file"),
                Arguments.of(
                        List.of("--model", "mlp", "--resume", "newer.ckpt"),
                        "written by a newer multigpu-lab (checkpoint schema " + (Checkpoint.SCHEMA + 1)
                                + "; this one reads up to " + Checkpoint.SCHEMA + ")"),
                Arguments.of(
                        List.of("--model", "mlp", "--resume", "mlp.ckpt", "--optimizer", "adam", "--lr", "0.2"),
                        "its optimizer is sgd, this run's adam (betas 0.9, 0.999, eps 1.0E-8, weight decay 0.0)"),
                Arguments.of(List.of("--resume", "mlp.ckpt"), "is of another run: its model is MLP, this run's LeNet"),
                Arguments.of(
                        List.of("--model", "mlp", "--resume", "mlp.ckpt", "--accumulate", "2"),
                        "its accumulate is 1, this run's 2"),
                Arguments.of(
                        List.of("--model", "mlp", "--resume", "mlp.ckpt", "--lr", "0.1"),
                        "its lr is 0.2, this run's 0.1"),
                Arguments.of(
                        List.of("--model", "mlp", "--resume", "mlp.ckpt", "--allreduce", "ring"),
                        "its allreduce is naive, this run's ring"),
                Arguments.of(
                        List.of("--model", "mlp", "--resume", "mlp.ckpt", "--seed", "2", "--no-shuffle"),
                        "its seed is 1, this run's 2; its shuffle is true, this run's false"),
                Arguments.of(
                        List.of("--model", "mlp", "--resume", "mlp.ckpt", "--test-samples", "256"),
                        "its test-samples is 128, this run's 256; its data is sha256:"),
                Arguments.of(List.of("--resume", "params.safetensors"), "holds parameters but no training state"),
                Arguments.of(
                        List.of("--model", "mlp", "--resume", "mlp.ckpt", "--load", "params.safetensors"),
                        "--resume continues a run with the parameters of its checkpoint; --load cannot"),
                Arguments.of(List.of("--checkpoint-every", "3"), "--checkpoint-every needs --checkpoint FILE"),
                Arguments.of(
                        List.of("--checkpoint", "new.ckpt", "--checkpoint-every", "0"),
                        "--checkpoint-every must be 1 or more"),
                Arguments.of(List.of("--checkpoint", "no/such/folder/c.ckpt"), "does not exist"));
    }

    @ParameterizedTest
    @MethodSource("badInputs")
    void endsInOneClearLineAndOverwritesNothing(List<String> options, String expected) throws IOException {
        List<String> args = new ArrayList<>(List.of(
                "train", "--epochs", "2", "--plot-dir", dir.resolve("plots").toString()));
        for (int i = 0; i < SLICE.size(); i += 2) {
            if (!options.contains(SLICE.get(i))) {
                args.addAll(SLICE.subList(i, Math.min(i + 2, SLICE.size())));
            }
        }
        for (int i = 0; i < options.size(); i++) {
            String o = options.get(i);
            boolean file =
                    i > 0 && List.of("--resume", "--checkpoint", "--load").contains(options.get(i - 1));
            args.add(file ? dir.resolve(o).toString() : o);
            if (file && options.get(i - 1).equals("--resume") && !options.contains("--checkpoint")) {
                // the run would replace the file it resumes: a failure must leave it as it was
                args.addAll(List.of("--checkpoint", dir.resolve(o).toString()));
            }
        }
        Map<Path, byte[]> before = contents();
        LabRunner.Result r = LabRunner.run(args.toArray(String[]::new));
        assertEquals(2, r.exit(), "exit status for " + options + ": " + r.err());
        String[] lines = r.err().strip().split("\n");
        assertTrue(
                lines.length == 1 && lines[0].startsWith("error: ") && lines[0].contains(expected),
                "for " + options + " expected one line containing '" + expected + "', got:\n" + r.err());
        assertFalse(r.out().contains("test acc:"), "nothing trained");
        Map<Path, byte[]> after = contents();
        assertEquals(before.keySet(), after.keySet(), "no file made or removed");
        before.forEach((f, bytes) -> assertTrue(Arrays.equals(bytes, after.get(f)), f + " was changed"));
    }

    private static Map<Path, byte[]> contents() throws IOException {
        Map<Path, byte[]> files = new HashMap<>();
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path f : all.filter(Files::isRegularFile).toList()) {
                files.put(f, Files.readAllBytes(f));
            }
        }
        return files;
    }
}
