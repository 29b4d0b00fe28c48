package org.multigpulab.lessons.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.multigpulab.core.Synthetic;
import org.multigpulab.core.model.HostTensor;
import org.multigpulab.core.model.LeNet;
import org.multigpulab.core.model.ParameterDistance;
import org.multigpulab.core.model.UpdateDistance;
import org.multigpulab.device.testing.Prerequisite;
import org.multigpulab.lessons.files.SafeTensors;

/**
 * PyTorch as the referee of our training: the notebook's own {@code train_batch} in Debian's python3-torch
 * ({@code scripts/pytorch-referee.py}, its devices copies of the parameters on the processor) and {@code ./lab
 * train} on logical GPUs over cpu, from the same initial parameters, on the first 2,560 training images in order
 * ({@code --no-shuffle --load}), batch 256, lr 0.2, on 2 and on 3 devices (256 rows split 86, 86, 84). Bound: every
 * tensor within 1e-5 of PyTorch's, {@code ‖ours − torch‖ / ‖torch‖} (measured: at most 4.6e-7 with 2 devices and
 * 4.7e-7 with 3, in b4), and every tensor's update within 1e-4 of PyTorch's (measured: at most 6.0e-6 and 5.8e-6,
 * in W3, whose ten updates come to 1.6e-4 of its values: float32's rounding of the weights shows in them).
 *
 * <p>The initial parameters are seed 2's. Two float32 trainings that sum in different orders part where a ReLU's input
 * lies within rounding of 0 and the two round it to different sides: from then on their updates differ by 2e-5 to 2e-4,
 * though neither is wrong (seed 1's part in the second step, where PyTorch leaves one of the 518,400 inputs of conv2's
 * ReLU in a shard on the other side of 0 from float64 and from ours). Of seeds 1 to 8, 2, 5 and 7 meet no such input in
 * these ten steps with our kernels at any vector width (16, 32 or 64 bytes) against PyTorch at any of its ATen
 * capabilities (default, avx2, avx512), oneDNN on SSE4.1; the others do. Without python3-torch the test is skipped here
 * and fails in CI.
 */
class PyTorchRefereeTest {

    private static final String IMAGES = "2560";
    private static final long SEED = 2;

    @TempDir
    Path dir;

    @ParameterizedTest(name = "{0} devices")
    @ValueSource(ints = {2, 3})
    void ourTrainingEndsWhereTheNotebooksDoesInPyTorch(int devices) throws Exception {
        Path data = Synthetic.realDataDir();
        Optional<String> python = PyTorchReferee.python();
        Prerequisite.require("torch", python.isPresent(), "no python3 here imports torch");
        Path init = dir.resolve("init.safetensors");
        List<HostTensor> start = new LeNet().initialState(SEED);
        SafeTensors.write(init, start);

        Path ours = dir.resolve("ours.safetensors");
        LabRunner.Result r = LabRunner.run(
                "train",
                "--backend",
                "sim",
                "--gpus",
                Integer.toString(devices),
                "--load",
                init.toString(),
                "--save",
                ours.toString(),
                "--no-shuffle",
                "--train-samples",
                IMAGES,
                "--test-samples",
                "256",
                "--epochs",
                "1",
                "--batch-size",
                "256",
                "--lr",
                "0.2",
                "--data",
                data.toString(),
                "--no-plot",
                "--quiet");
        assertEquals(0, r.exit(), r.err());

        Path torch = dir.resolve("torch.safetensors");
        String output = PyTorchReferee.run(
                python.orElseThrow(),
                List.of(
                        "--load",
                        init.toString(),
                        "--save",
                        torch.toString(),
                        "--devices",
                        Integer.toString(devices),
                        "--images",
                        IMAGES,
                        "--batch-size",
                        "256",
                        "--lr",
                        "0.2",
                        "--data",
                        data.toString()));

        List<HostTensor> referee = SafeTensors.read(torch), trained = SafeTensors.read(ours);
        List<String> distances = new ArrayList<>();
        double worst = 0;
        for (int i = 0; i < referee.size(); i++) {
            double d = ParameterDistance.relative(List.of(trained.get(i)), List.of(referee.get(i)));
            distances.add(String.format(Locale.ROOT, "%s %.2g", referee.get(i).name(), d));
            worst = Math.max(worst, d);
        }
        UpdateDistance updates = UpdateDistance.of(start, trained, referee);
        String measured = devices + " devices, ./lab train against PyTorch (" + output + "): parameters "
                + String.join(", ", distances) + "; updates " + updates;
        System.out.println(measured);
        assertTrue(worst <= 1e-5, measured);
        assertTrue(updates.worst().relative() <= 1e-4, measured);
        assertTrue(ParameterDistance.relative(referee, start) > 1e-3, "training changed the parameters");
    }
}
