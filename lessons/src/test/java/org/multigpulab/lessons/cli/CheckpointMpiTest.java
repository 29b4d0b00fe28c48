package org.multigpulab.lessons.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.multigpulab.core.Synthetic;
import org.multigpulab.core.model.Model;
import org.multigpulab.core.model.UpdateDistance;
import org.multigpulab.core.train.TrainingState;
import org.multigpulab.device.testing.Prerequisite;
import org.multigpulab.lessons.files.CheckpointFile;
import org.multigpulab.lessons.files.KillPoints;
import org.multigpulab.lessons.files.SafeTensors;

/**
 * Checkpoints under {@code mpirun}: rank 0 writes, every rank reads and checks that all read the same, and
 * {@code mpirun -np 2 ./lab train --dist mpi --resume FILE} continues a run that 2 ranks checkpointed (killed inside
 * an epoch) bit for bit, and one that 1 process with 2 devices checkpointed.
 */
class CheckpointMpiTest {

    /** 512 images in batches of 64: 8 steps an epoch. */
    private static final List<String> SLICE =
            List.of("--model", "mlp", "--train-samples", "512", "--test-samples", "128", "--batch-size", "64");

    @TempDir
    Path dir;

    @BeforeEach
    void needs() {
        Synthetic.realDataDir();
        Prerequisite.mpirun();
    }

    /** The slice's options for {@code epochs} epochs, then {@code more}. */
    private List<String> options(int epochs, String... more) {
        List<String> args = new ArrayList<>(SLICE);
        args.addAll(List.of("--epochs", Integer.toString(epochs)));
        args.addAll(List.of("--plot-dir", dir.resolve("plots").toString()));
        args.addAll(List.of(more));
        return args;
    }

    @Test
    void twoRanksResumeWhatTwoRanksCheckpointedBitForBit() throws Exception {
        Path whole = dir.resolve("whole.safetensors"), resumed = dir.resolve("resumed.safetensors");
        Path checkpoint = dir.resolve("run.ckpt");
        MpiRun.succeed(MpiRun.command(2, options(2, "--gpus", "1", "--quiet", "--save", whole.toString())));

        // every 3 steps: the last checkpoint before step 3 of epoch 2 (step 11) is the one after step 9, 2/1
        List<String> killed = new ArrayList<>(MpiRun.command(
                2,
                options(
                        2,
                        "--gpus",
                        "1",
                        "--quiet",
                        "--checkpoint",
                        checkpoint.toString(),
                        "--checkpoint-every",
                        "3")));
        killed.add(killed.indexOf("--enable-native-access=ALL-UNNAMED"), "-D" + KillPoints.PAUSE_AT + "=step 2/3");
        Process p = new ProcessBuilder(killed).redirectErrorStream(true).start();
        BufferedReader reader = p.inputReader();
        StringBuilder out = new StringBuilder();
        for (String line = reader.readLine();
                line != null && !line.equals("paused at step 2/3");
                line = reader.readLine()) {
            out.append(line).append('\n');
        }
        p.descendants().forEach(ProcessHandle::destroyForcibly);
        p.destroyForcibly();
        assertTrue(p.waitFor(30, TimeUnit.SECONDS), "the killed run did not end");
        TrainingState state = CheckpointFile.read(checkpoint).checkpoint().state();
        assertEquals("2/1", state.epoch() + "/" + state.batchesDone(), "the checkpoint before the kill:\n" + out);

        String output = MpiRun.succeed(MpiRun.command(
                2,
                options(
                        2,
                        "--gpus",
                        "1",
                        "--resume",
                        checkpoint.toString(),
                        "--checkpoint",
                        checkpoint.toString(),
                        "--save",
                        resumed.toString())));
        assertTrue(output.contains("resuming " + checkpoint + " at epoch 2, batch 1 of 8"), output);
        assertEquals(-1L, Files.mismatch(whole, resumed), "resumed by 2 ranks vs never stopped:\n" + output);
    }

    /**
     * One process with 2 devices and 2 ranks of one device sum the same gradients in another order. Bound: every
     * tensor's update within 1e-4 of the uninterrupted run's, as in {@code MpiTrainTest}.
     */
    @Test
    void twoRanksResumeWhatOneProcessWithTwoDevicesCheckpointed() throws Exception {
        Path checkpoint = dir.resolve("one.ckpt"), whole = dir.resolve("whole.safetensors");
        Path resumed = dir.resolve("resumed.safetensors");
        List<String> first = new ArrayList<>(List.of("train"));
        first.addAll(options(1, "--gpus", "2", "--quiet", "--checkpoint", checkpoint.toString()));
        LabRunner.Result r = LabRunner.run(first.toArray(String[]::new));
        assertEquals(0, r.exit(), r.err());
        List<String> wholeRun = new ArrayList<>(List.of("train"));
        wholeRun.addAll(options(2, "--gpus", "2", "--quiet", "--save", whole.toString()));
        LabRunner.Result w = LabRunner.run(wholeRun.toArray(String[]::new));
        assertEquals(0, w.exit(), w.err());

        String output = MpiRun.succeed(MpiRun.command(
                2, options(2, "--gpus", "1", "--resume", checkpoint.toString(), "--save", resumed.toString())));
        assertTrue(
                output.contains("resuming " + checkpoint + " at epoch 2, batch 0 of 8 (devices per process 2 → 1,"
                        + " processes 1 → 2)"),
                output);
        UpdateDistance d = UpdateDistance.of(
                Model.named("mlp").initialState(1), SafeTensors.read(resumed), SafeTensors.read(whole));
        assertTrue(d.worst().relative() < 1e-4, "2 ranks resuming 1 process × 2 devices: " + d);
    }

    /**
     * A checkpoint of ZeRO stage 3 on 2 ranks (each rank's chunks gathered into the whole model and Adam's state)
     * resumed in one process with 2 devices and nothing sharded ends as the run that was never sharded. Bound as
     * above.
     */
    @Test
    void oneProcessResumesWhatTwoRanksShardedCheckpointed() throws Exception {
        Path checkpoint = dir.resolve("zero.ckpt"), whole = dir.resolve("whole.safetensors");
        Path resumed = dir.resolve("resumed.safetensors");
        MpiRun.succeed(MpiRun.command(
                2,
                options(
                        1,
                        "--gpus",
                        "1",
                        "--quiet",
                        "--optimizer",
                        "adam",
                        "--zero",
                        "3",
                        "--checkpoint",
                        checkpoint.toString())));
        List<String> wholeRun = new ArrayList<>(List.of("train"));
        wholeRun.addAll(options(2, "--gpus", "2", "--quiet", "--optimizer", "adam", "--save", whole.toString()));
        LabRunner.Result w = LabRunner.run(wholeRun.toArray(String[]::new));
        assertEquals(0, w.exit(), w.err());
        List<String> resume = new ArrayList<>(List.of("train"));
        resume.addAll(options(
                2,
                "--gpus",
                "2",
                "--quiet",
                "--optimizer",
                "adam",
                "--resume",
                checkpoint.toString(),
                "--save",
                resumed.toString()));
        LabRunner.Result r = LabRunner.run(resume.toArray(String[]::new));
        assertEquals(0, r.exit(), r.err());
        UpdateDistance d = UpdateDistance.of(
                Model.named("mlp").initialState(1), SafeTensors.read(resumed), SafeTensors.read(whole));
        assertTrue(d.worst().relative() < 1e-4, "one process resuming 2 ranks at stage 3: " + d);
    }
}
