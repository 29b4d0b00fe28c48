package org.multigpulab.lessons.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.multigpulab.core.Synthetic;
import org.multigpulab.core.model.HostTensor;
import org.multigpulab.core.model.LeNet;
import org.multigpulab.core.model.Mlp;
import org.multigpulab.device.testing.Prerequisite;
import org.multigpulab.lessons.files.SafeTensors;

/**
 * A model's buffers through the files and the processes a run crosses, with {@code --model mlp-bn} (d2l's MLP with
 * BatchNorm-shaped buffers, from core's tests): {@code --save} holds them under their names, the counter as I64 as
 * PyTorch's {@code num_batches_tracked} is, and {@code --load} starts from them; MPI ranks keep rank 0's, as one
 * process keeps device 0's; a file of another model, or one without the buffers, is refused naming what differs, and
 * nothing is written. (Checkpoints killed with SIGKILL and resumed: {@code CheckpointKillTest}, on the same model.)
 */
class BuffersFilesTest {

    /** 512 images in batches of 64: 8 steps an epoch. */
    private static final int STEPS = 8;

    @TempDir
    Path dir;

    @BeforeEach
    void needsTheRealData() {
        Synthetic.realDataDir();
    }

    private List<String> train(String gpus, String... more) {
        List<String> args = new ArrayList<>(List.of(
                "train",
                "--model",
                "mlp-bn",
                "--gpus",
                gpus,
                "--no-shuffle",
                "--train-samples",
                "512",
                "--test-samples",
                "128",
                "--batch-size",
                "64",
                "--epochs",
                "1",
                "--quiet",
                "--plot-dir",
                dir.resolve("plots").toString()));
        args.addAll(List.of(more));
        return args;
    }

    private LabRunner.Result run(List<String> args) {
        return LabRunner.run(args.toArray(String[]::new));
    }

    private static HostTensor named(List<HostTensor> tensors, String name) {
        return tensors.stream().filter(t -> t.name().equals(name)).findFirst().orElseThrow();
    }

    /** The header entry of {@code name} in a safetensors file. */
    private static JsonObject header(Path file, String name) throws Exception {
        byte[] bytes = Files.readAllBytes(file);
        long length = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).getLong(0);
        String json = new String(bytes, 8, (int) length, StandardCharsets.UTF_8);
        return JsonParser.parseString(json).getAsJsonObject().getAsJsonObject(name);
    }

    @Test
    void saveHoldsTheBuffersUnderTheirNamesTheCounterAsI64AndLoadStartsFromThem() throws Exception {
        Path first = dir.resolve("first.safetensors"), second = dir.resolve("second.safetensors");
        LabRunner.Result r = run(train("2", "--save", first.toString()));
        assertEquals(0, r.exit(), r.err());
        assertEquals("I64", header(first, "bn.num_batches_tracked").get("dtype").getAsString());
        assertEquals("F32", header(first, "bn.running_mean").get("dtype").getAsString());
        List<HostTensor> saved = SafeTensors.read(first);
        assertEquals(
                List.of("W1", "b1", "W2", "b2", "bn.running_mean", "bn.running_var", "bn.num_batches_tracked"),
                saved.stream().map(HostTensor::name).toList());
        assertEquals(STEPS, named(saved, "bn.num_batches_tracked").values()[0]);
        assertTrue(named(saved, "bn.num_batches_tracked").integral());
        assertArrayEquals(
                Files.readAllBytes(first),
                SafeTensors.encode(
                        saved,
                        SafeTensors.decode(first, Files.readAllBytes(first)).metadata()),
                "read and written again, the same bytes");

        r = run(train("2", "--load", first.toString(), "--save", second.toString()));
        assertEquals(0, r.exit(), r.err());
        assertEquals(
                2 * STEPS,
                named(SafeTensors.read(second), "bn.num_batches_tracked").values()[0],
                "counted on");
    }

    /** Two ranks of one GPU keep rank 0's buffers, as one process of two GPUs keeps device 0's: the same state. */
    @Test
    void mpiRanksKeepRankZerosBuffersAsOneProcessKeepsDeviceZeros() throws Exception {
        Prerequisite.mpirun();
        Path one = dir.resolve("one.safetensors"), ranks = dir.resolve("ranks.safetensors");
        LabRunner.Result r = run(train("2", "--save", one.toString()));
        assertEquals(0, r.exit(), r.err());
        List<String> options = train("1", "--save", ranks.toString());
        MpiRun.succeed(MpiRun.command(2, options.subList(1, options.size())));
        List<HostTensor> a = SafeTensors.read(one), b = SafeTensors.read(ranks);
        assertEquals(STEPS, named(b, "bn.num_batches_tracked").values()[0]);
        for (String buffer : List.of("bn.running_mean", "bn.running_var")) {
            float[] x = named(a, buffer).values(), y = named(b, buffer).values();
            for (int i = 0; i < x.length; i++) {
                assertEquals(x[i], y[i], 1e-5 * (1 + Math.abs(x[i])), buffer + " at " + i);
            }
        }
    }

    @Test
    void aFileOfAnotherModelOrWithoutTheBuffersIsRefusedNamingWhatDiffersAndNothingIsWritten() {
        Path lenet = dir.resolve("lenet.safetensors"), mlp = dir.resolve("mlp.safetensors");
        SafeTensors.write(lenet, new LeNet().initialState(0));
        SafeTensors.write(mlp, new Mlp().initialState(0));
        Path out = dir.resolve("out.safetensors");

        LabRunner.Result r = run(train("1", "--load", lenet.toString(), "--save", out.toString()));
        assertNotEquals(0, r.exit());
        assertTrue(
                r.err()
                        .contains(
                                "3 tensors (bn.running_mean, bn.running_var, bn.num_batches_tracked) missing; 4 tensors"
                                        + " (W3, b3, W4, b4) the model does not have. It holds LeNet's state: give --model lenet"),
                r.err());

        r = run(train("1", "--load", mlp.toString(), "--save", out.toString()));
        assertNotEquals(0, r.exit());
        assertTrue(
                r.err()
                        .contains(
                                "3 tensors (bn.running_mean, bn.running_var, bn.num_batches_tracked) missing. It holds"
                                        + " MLP's state: give --model mlp"),
                r.err());
        assertFalse(r.err().contains("\tat "), "no stack trace: " + r.err());
        assertFalse(Files.exists(out), "nothing written");
    }
}
