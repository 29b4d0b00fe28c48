package org.multigpulab.lessons.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.multigpulab.core.model.HostTensor;
import org.multigpulab.core.model.LeNet;
import org.multigpulab.core.model.ResNet18;
import org.multigpulab.lessons.errors.UserError;
import org.multigpulab.lessons.files.SafeTensors;

/**
 * Bad input to {@code ./lab train}: each ends in one clear line on standard error that names the problem, a
 * non-zero exit status, no stack trace, and nothing written.
 */
class BadInputTest {

    @TempDir
    static Path dir;

    static Stream<Arguments> badInputs() throws IOException {
        Path notSafetensors = Files.writeString(dir.resolve("notes.txt"), "hello");
        Path truncated = dir.resolve("truncated.safetensors");
        SafeTensors.write(truncated, new LeNet().initialState(0));
        byte[] bytes = Files.readAllBytes(truncated);
        Files.write(truncated, Arrays.copyOf(bytes, bytes.length / 2));
        Path wrongShapes = dir.resolve("wrong.safetensors");
        List<HostTensor> params = new ArrayList<>(new LeNet().initialState(0));
        params.set(4, new HostTensor("W3", new int[] {128, 800}, params.get(4).values()));
        SafeTensors.write(wrongShapes, params);
        Path missingTensor = dir.resolve("missing.safetensors");
        SafeTensors.write(missingTensor, new LeNet().initialState(0).subList(0, 7));
        Path lenet = dir.resolve("lenet.safetensors");
        SafeTensors.write(lenet, new LeNet().initialState(0));
        Path resnetWithoutABuffer = dir.resolve("resnet-without-a-buffer.safetensors");
        List<HostTensor> resnet = new ResNet18().initialState(0);
        SafeTensors.write(resnetWithoutABuffer, resnet.subList(0, resnet.size() - 1));
        Path badJson = dir.resolve("badjson.safetensors");
        Files.write(badJson, new byte[] {4, 0, 0, 0, 0, 0, 0, 0, '{', '"', 'x', ':'});
        Path emptyData = Files.createDirectories(dir.resolve("empty-data"));
        Path corruptData = Files.createDirectories(dir.resolve("corrupt-data"));
        for (String f : List.of(
                "train-images-idx3-ubyte",
                "train-labels-idx1-ubyte",
                "t10k-images-idx3-ubyte",
                "t10k-labels-idx1-ubyte")) {
            Files.writeString(corruptData.resolve(f), "not idx");
        }
        return Stream.of(
                Arguments.of(List.of("--gpus", "0"), "--gpus must be 1 or more"),
                Arguments.of(List.of("--gpus", "-3"), "--gpus must be 1 or more"),
                Arguments.of(List.of("--batch-size", "0"), "--batch-size must be 1 or more"),
                Arguments.of(List.of("--epochs", "0"), "--epochs must be 1 or more"),
                Arguments.of(List.of("--lr", "0"), "--lr must be a positive number"),
                Arguments.of(List.of("--lr", "NaN"), "--lr must be a positive number"),
                Arguments.of(List.of("--lr", "-0.1"), "--lr must be a positive number"),
                Arguments.of(List.of("--lr", "fast"), "'fast' is not a float"),
                Arguments.of(
                        List.of(
                                "--save",
                                dir.resolve("out").toString(),
                                "--report",
                                dir.resolve("out").toString()),
                        "--save and --report both name"),
                Arguments.of(List.of("--lr", "1e40"), "(a float: at most 3.4e38), not 1e40"),
                Arguments.of(
                        List.of("--bucket-mb", "1e7"),
                        "at most 1048576 (a tebibyte), such as 25 (DDP's default), not 1.0E7"),
                Arguments.of(List.of("--save", "/proc/p.safetensors"), "the folder /proc is not writable"),
                Arguments.of(List.of("--plot-dir", "/proc/plots"), "--plot-dir /proc/plots: the folder /proc is not"),
                Arguments.of(
                        List.of("--plot-dir", dir.resolve("notes.txt/plots").toString()),
                        "notes.txt is a file, not a folder"),
                Arguments.of(List.of("--gpus", "two"), "'two' is not an int"),
                Arguments.of(List.of("--backend", "tpu"), "unknown backend 'tpu'"),
                Arguments.of(List.of("--backend", "cpu", "--gpus", "2"), "--backend sim --gpus 2"),
                Arguments.of(
                        List.of("--backend", "cpu", "--physical", "cpu"),
                        "--physical chooses the device under --backend sim"),
                Arguments.of(List.of("--physical", "tpu"), "unknown backend 'tpu'"),
                Arguments.of(List.of("--train-samples", "60001"), "more than the 60000 images"),
                Arguments.of(List.of("--test-samples", "0"), "--test-samples must be 1 or more"),
                Arguments.of(List.of("--data", dir.resolve("nope").toString()), "is not a folder"),
                Arguments.of(List.of("--data", emptyData.toString()), "lacks some of the four Fashion-MNIST files"),
                Arguments.of(List.of("--data", corruptData.toString()), "train-images-idx3-ubyte"),
                Arguments.of(List.of("--load", dir.resolve("absent.safetensors").toString()), "no such file"),
                Arguments.of(List.of("--load", notSafetensors.toString()), "not a readable safetensors file"),
                Arguments.of(List.of("--load", truncated.toString()), "not a readable safetensors file"),
                Arguments.of(List.of("--load", badJson.toString()), "not valid JSON"),
                Arguments.of(
                        List.of("--load", wrongShapes.toString()),
                        "tensor W3 has shape [128, 800] where the model's is [800, 128]"),
                Arguments.of(List.of("--load", missingTensor.toString()), "1 tensor (b4) missing"),
                Arguments.of(
                        List.of(
                                "--save",
                                dir.resolve("no/such/folder/p.safetensors").toString()),
                        "does not exist"),
                Arguments.of(List.of("--report", dir.toString()), "is a folder"),
                Arguments.of(List.of("--epochs"), "Missing required parameter"),
                Arguments.of(List.of("--gpu", "2"), "Unknown options: '--gpu', '2'"),
                Arguments.of(List.of("--allreduce", "butterfly"), "unknown allreduce algorithm 'butterfly'"),
                Arguments.of(
                        List.of("--optimizer", "rmsprop"),
                        "--optimizer: unknown optimizer 'rmsprop'; choose sgd, adam or adamw"),
                Arguments.of(List.of("--nesterov"), "Nesterov momentum needs a momentum above 0 and dampening 0"),
                Arguments.of(
                        List.of("--optimizer", "adam", "--momentum", "0.9"),
                        "--momentum is not an option of --optimizer adam"),
                Arguments.of(List.of("--optimizer", "adam", "--betas", "0.9"), "--betas takes two numbers"),
                Arguments.of(
                        List.of("--model", "resnet"),
                        "unknown model 'resnet'; choose lenet (the notebook's LeNet), mlp (d2l's multilayer perceptron),"
                                + " mlp-wide (eight hidden layers of 2,048)"),
                Arguments.of(List.of("--accumulate", "0"), "--accumulate must be 1 or more, not 0"),
                Arguments.of(
                        List.of("--zero", "4"),
                        "--zero must be a ZeRO stage, 0 (nothing sharded) to 3 (parameters sharded), not 4"),
                Arguments.of(
                        List.of("--model", "mlp", "--load", lenet.toString()),
                        "4 tensors (W3, b3, W4, b4) the model does not have. It holds LeNet's state: give --model"
                                + " lenet"),
                Arguments.of(
                        List.of("--model", "resnet18", "--load", lenet.toString()),
                        "127 tensors (0.weight, 0.bias, 1.weight, 1.bias, resnet_block1.0.conv1.weight, … and 122 more)"
                                + " missing; 8 tensors (W1, b1, W2, b2, W3, … and 3 more) the model does not have. It"
                                + " holds LeNet's state: give --model lenet"),
                Arguments.of(
                        List.of("--model", "resnet18", "--load", resnetWithoutABuffer.toString()),
                        "1 tensor (resnet_block4.1.bn2.num_batches_tracked) missing"),
                Arguments.of(List.of("--batchnorm", "global"), "'global' is neither local"),
                Arguments.of(List.of("--profile", "k80"), "unknown device profile 'k80'; choose t4"),
                Arguments.of(List.of("--topology", "ethernet"), "unknown topology 'ethernet'; choose pcie3"),
                Arguments.of(
                        List.of("--backend", "cpu", "--profile", "t4"),
                        "--profile chooses the GPUs timed by --backend sim; leave it out with --backend cpu"),
                Arguments.of(
                        List.of(
                                "--backend",
                                "cpu",
                                "--trace",
                                dir.resolve("t.json").toString()),
                        "--trace records simulated time, which only --backend sim has"),
                Arguments.of(List.of("--trace", dir.resolve("no/such/t.json").toString()), "does not exist"),
                Arguments.of(List.of("--bucket-cap-mb", "0"), "--bucket-cap-mb must be a number of mebibytes above 0"),
                Arguments.of(List.of("--backend", "djl", "--gpus", "64"), "--backend sim --physical djl --gpus 64"),
                Arguments.of(List.of("--profile", "t4", "--gpus", "2", "--memory-mb", "1"), "Unknown option"));
    }

    /** mpirun -np 4 ./lab train without --dist mpi: refused, rather than four trainings writing the same files. */
    @Test
    void oneOfManyProcessesWithoutDistMpiIsRefused() {
        UserError e = assertThrows(
                UserError.class, () -> TrainCommand.checkNotOneOfMany("none", Map.of("OMPI_COMM_WORLD_SIZE", "4")));
        assertTrue(e.getMessage().startsWith("this process is one of 4 that a launcher started"), e.getMessage());
        assertTrue(e.getMessage().endsWith("add --dist mpi"), e.getMessage());
        TrainCommand.checkNotOneOfMany("none", Map.of("OMPI_COMM_WORLD_SIZE", "1"));
        TrainCommand.checkNotOneOfMany("none", Map.of());
        TrainCommand.checkNotOneOfMany("mpi", Map.of("PMI_SIZE", "4"));
    }

    @ParameterizedTest
    @MethodSource("badInputs")
    void endsInOneClearLine(List<String> options, String expected) throws IOException {
        List<String> args = new ArrayList<>(List.of("train", "--quiet"));
        for (String[] quick : new String[][] {
            {"--plot-dir", dir.resolve("plots").toString()},
            {"--epochs", "1"},
            {"--train-samples", "512"},
            {"--test-samples", "256"}
        }) {
            if (!options.contains(quick[0])) {
                args.addAll(List.of(quick));
            }
        }
        args.addAll(options);
        long before;
        try (Stream<Path> files = Files.walk(dir)) {
            before = files.count();
        }
        LabRunner.Result r = LabRunner.run(args.toArray(String[]::new));
        assertNotEquals(0, r.exit(), "exit status for " + options);
        String[] lines = r.err().strip().split("\n");
        assertTrue(
                lines[0].startsWith("error: ") && lines[0].contains(expected),
                "for " + options + " expected one line containing '" + expected + "', got:\n" + r.err());
        assertTrue(lines.length <= 2, "at most the error and a hint, got:\n" + r.err());
        assertFalse(r.err().contains("\tat ") || r.err().contains("Exception"), "no stack trace:\n" + r.err());
        assertFalse(r.out().contains("test acc:"), "nothing trained");
        try (Stream<Path> files = Files.walk(dir)) {
            assertEquals(before, files.count(), "no file was left behind");
        }
    }
}
