package org.multigpulab.lessons.files;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.multigpulab.core.model.HostTensor;
import org.multigpulab.core.model.Mlp;
import org.multigpulab.core.train.Checkpoint;
import org.multigpulab.core.train.TrainingListener.EpochDone;
import org.multigpulab.core.train.TrainingState;

class CheckpointFileTest {

    @TempDir
    Path dir;

    /**
     * What is written is read back exactly: every double of the state to the last bit (random ones, the seed
     * printed), NaN simulated seconds of a real device, the run, the placement and the parameters; and the
     * parameters are a plain safetensors file.
     */
    @Test
    void readsBackExactlyWhatItWrote() {
        long seed = new Random().nextLong();
        Random r = new Random(seed);
        List<EpochDone> finished = List.of(
                new EpochDone(1, 3, r.nextDouble(), r.nextDouble(), r.nextDouble(), r.nextDouble(), Double.NaN),
                new EpochDone(2, 3, r.nextDouble(), r.nextDouble(), r.nextDouble(), r.nextDouble(), r.nextDouble()));
        TrainingState state = new TrainingState(3, 7, r.nextDouble() * 1e3, 4321, r.nextDouble(), Double.NaN, finished);
        Checkpoint.Run run = new Checkpoint.Run(
                "MLP",
                256,
                0.2f,
                -5,
                true,
                60000,
                10000,
                "sha256:0123",
                "ring",
                "adam (betas 0.9, 0.999, eps 1.0E-8, weight decay 0.0)",
                4);
        List<HostTensor> params = new Mlp().initialState(r.nextLong());
        CheckpointFile.Placement placement = new CheckpointFile.Placement("sim", "cpu", 2, 1, "runs/x");
        Path file = dir.resolve("c.ckpt");
        CheckpointFile.write(file, new Checkpoint(run, state, params), placement);

        CheckpointFile.Contents back = CheckpointFile.read(file);
        assertEquals(run, back.checkpoint().run(), "seed " + seed);
        assertEquals(state, back.checkpoint().state(), "seed " + seed); // records compare doubles bit for bit
        assertEquals(placement, back.placement());
        List<HostTensor> plain = SafeTensors.read(file);
        for (int i = 0; i < params.size(); i++) {
            assertEquals(params.get(i).name(), back.checkpoint().params().get(i).name());
            assertArrayEquals(
                    params.get(i).values(), back.checkpoint().params().get(i).values());
            assertArrayEquals(params.get(i).values(), plain.get(i).values());
        }
    }

    @Test
    void theHashTellsFilesApart() throws Exception {
        TrainingState state = TrainingState.START;
        Checkpoint.Run run = new Checkpoint.Run("MLP", 256, 0.2f, 1, true, 600, 100, "sha256:0123", "naive", "sgd", 1);
        CheckpointFile.Placement placement = new CheckpointFile.Placement("sim", null, 2, 1, null);
        Path a = dir.resolve("a.ckpt"), b = dir.resolve("b.ckpt");
        CheckpointFile.write(a, new Checkpoint(run, state, new Mlp().initialState(1)), placement);
        CheckpointFile.write(b, new Checkpoint(run, state, new Mlp().initialState(2)), placement);
        Files.copy(a, dir.resolve("copy.ckpt"));
        assertEquals(
                CheckpointFile.read(a).hash(),
                CheckpointFile.read(dir.resolve("copy.ckpt")).hash());
        assertNotEquals(CheckpointFile.read(a).hash(), CheckpointFile.read(b).hash());
    }
}
