package org.multigpulab.lessons.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.multigpulab.core.Synthetic;
import org.multigpulab.core.train.TrainingState;
import org.multigpulab.lessons.files.CheckpointFile;
import org.multigpulab.lessons.files.ChildJvm;
import org.multigpulab.lessons.files.KillPoints;
import org.multigpulab.lessons.files.RunReport;

/**
 * {@code ./lab train --checkpoint} of a model with buffers ({@code mlp-bn}) killed with SIGKILL at 10 points chosen at random (the seed is printed;
 * {@code -Dcheckpoint.kill.seed=S} repeats a run) and resumed with {@code --resume}: every resumed run ends with
 * the parameters of the run that was never killed, bit for bit, and the same epochs in its report. Four kills land
 * inside an epoch (after a step), three during a checkpoint's write (its temporary file half written), three
 * between epochs (before or after the epoch's checkpoint); the killed run waits at its point through {@link
 * KillPoints}, so where a kill lands does not depend on a clock. After a kill the checkpoint is the last one
 * written whole, never the half-written one (and none at all when the first write was killed: the run then starts
 * again).
 */
class CheckpointKillTest {

    private static final int KILLS = 10;
    /** 512 images in batches of 64: 8 steps an epoch; a checkpoint every 3 steps and after each epoch. */
    private static final int BATCHES = 8, EVERY = 3, EPOCHS = 2;
    /** Bounds a run that never reaches its point, so a broken one fails the test instead of hanging it. */
    private static final int POINT_LIMIT_S = 60;

    @TempDir
    Path dir;

    private List<String> train(Path checkpoint, String... more) {
        List<String> args = new ArrayList<>(List.of(
                "train",
                "--model",
                "mlp-bn",
                "--gpus",
                "2",
                "--train-samples",
                "512",
                "--test-samples",
                "128",
                "--batch-size",
                "64",
                "--epochs",
                Integer.toString(EPOCHS),
                "--quiet",
                "--plot-dir",
                dir.resolve("plots").toString(),
                "--checkpoint",
                checkpoint.toString(),
                "--checkpoint-every",
                Integer.toString(EVERY)));
        args.addAll(List.of(more));
        return args;
    }

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void aRunKilledAnywhereResumesToTheSameParametersBitForBit() throws Exception {
        Synthetic.realDataDir();
        long seed =
                Long.getLong("checkpoint.kill.seed", ThreadLocalRandom.current().nextLong());
        Random random = new Random(seed);
        Path whole = dir.resolve("whole.safetensors"), wholeReport = dir.resolve("whole.json");
        LabRunner.Result r = LabRunner.run(
                train(dir.resolve("whole.ckpt"), "--save", whole.toString(), "--report", wholeReport.toString())
                        .toArray(String[]::new));
        assertEquals(0, r.exit(), r.err());
        List<RunReport.Epoch> wholeEpochs =
                RunReport.fromJson(Files.readString(wholeReport)).epochs();
        List<String> points = points(random);
        System.out.println("checkpoint kill test, seed " + seed + ": killed at " + points);
        for (int k = 0; k < KILLS; k++) {
            String point = points.get(k);
            String run = "kill " + (k + 1) + " of " + KILLS + " at '" + point + "' (seed " + seed + ")";
            Path folder = Files.createDirectory(dir.resolve("kill-" + (k + 1)));
            Path checkpoint = folder.resolve("run.ckpt");
            String lastWritten = killAt(point, checkpoint, folder, run);
            if (lastWritten == null) {
                assertFalse(Files.exists(checkpoint), run + ": the first checkpoint, half-written, is not in place");
            } else {
                TrainingState state =
                        CheckpointFile.read(checkpoint).checkpoint().state();
                assertEquals(
                        lastWritten,
                        "checkpoint " + state.epoch() + "/" + state.batchesDone(),
                        run + ": the checkpoint must be the last one written whole");
            }
            if (point.endsWith("half-written")) {
                try (Stream<Path> files = Files.list(folder)) {
                    assertTrue(
                            files.anyMatch(f -> f.getFileName().toString().endsWith(".part")),
                            run + ": the half-written temporary file is left beside the checkpoint");
                }
            }
            Path resumed = folder.resolve("resumed.safetensors"), report = folder.resolve("resumed.json");
            List<String> again = train(checkpoint, "--save", resumed.toString(), "--report", report.toString());
            if (lastWritten != null) {
                again.addAll(List.of("--resume", checkpoint.toString()));
            } // else killed in the first checkpoint's write: nothing to resume, the run starts again
            LabRunner.Result res = LabRunner.run(again.toArray(String[]::new));
            assertEquals(0, res.exit(), run + ": " + res.err());
            assertEquals(-1L, Files.mismatch(whole, resumed), run + ": the parameters differ from the whole run's");
            List<RunReport.Epoch> epochs =
                    RunReport.fromJson(Files.readString(report)).epochs();
            assertEquals(wholeEpochs.size(), epochs.size(), run);
            for (int e = 0; e < epochs.size(); e++) {
                RunReport.Epoch a = wholeEpochs.get(e), b = epochs.get(e);
                String which = run + ", epoch " + (e + 1);
                assertEquals(a.trainLoss(), b.trainLoss(), which);
                assertEquals(a.trainAcc(), b.trainAcc(), which);
                assertEquals(a.testAcc(), b.testAcc(), which);
                // simulated seconds go on from the checkpoint's, added in another order
                assertEquals(a.simSec(), b.simSec(), 1e-9 * a.simSec(), which);
            }
        }
    }

    /** Ten points: four after a step, three inside a checkpoint's write, three between epochs. */
    private static List<String> points(Random random) {
        List<String> steps = new ArrayList<>(), writes = new ArrayList<>();
        for (int e = 1; e <= EPOCHS; e++) {
            for (int b = 1; b <= BATCHES; b++) {
                int step = (e - 1) * BATCHES + b;
                if (step > EVERY) { // a checkpoint to resume from exists
                    steps.add("step " + e + "/" + b);
                }
                if (step % EVERY == 0 && b < BATCHES) {
                    writes.add("checkpoint " + e + "/" + b + " half-written");
                }
            }
            writes.add("checkpoint " + (e + 1) + "/0 half-written");
        }
        List<String> between = List.of("epoch 1", "checkpoint 2/0 written", "epoch 2");
        List<String> points = new ArrayList<>();
        IntStream.range(0, 4).forEach(i -> points.add(steps.get(random.nextInt(steps.size()))));
        IntStream.range(0, 3).forEach(i -> points.add(writes.get(random.nextInt(writes.size()))));
        IntStream.range(0, 3).forEach(i -> points.add(between.get(random.nextInt(between.size()))));
        return points;
    }

    /**
     * Trains in a child JVM until it waits at {@code point}, kills it there, and returns the last checkpoint it
     * wrote whole ({@code checkpoint 2/6}), or {@code null} if it wrote none.
     */
    private String killAt(String point, Path checkpoint, Path folder, String run) throws Exception {
        List<String> jvm = List.of(
                "-Xmx512m",
                "--add-modules",
                "jdk.incubator.vector",
                "--enable-native-access=ALL-UNNAMED",
                "-D" + KillPoints.PAUSE_AT + "=" + point);
        try (ChildJvm child =
                ChildJvm.start(jvm, Lab.class.getName(), train(checkpoint), folder.resolve("child.log"))) {
            String lastWritten = null;
            for (String line = child.readLine(POINT_LIMIT_S, run);
                    !("paused at " + point).equals(line);
                    line = child.readLine(POINT_LIMIT_S, run)) {
                if (line == null) {
                    throw new AssertionError(run + ": the run ended before the point: " + child.errors());
                }
                if (line.startsWith("at checkpoint ") && line.endsWith(" written")) {
                    lastWritten = line.substring("at ".length(), line.length() - " written".length());
                }
            }
            child.kill();
            return lastWritten;
        } catch (IOException e) {
            throw new AssertionError(run + ": " + e, e);
        }
    }
}
