package org.multigpulab.lessons.simulate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.multigpulab.core.Synthetic;
import org.multigpulab.core.dist.ProcessGroup;
import org.multigpulab.core.model.Model;
import org.multigpulab.core.model.ParameterSpec;
import org.multigpulab.core.parallel.AllReduceAlgorithm;
import org.multigpulab.core.train.DataParallelTrainer;
import org.multigpulab.core.train.TrainConfig;
import org.multigpulab.core.train.TrainingListener;
import org.multigpulab.device.Backends;
import org.multigpulab.device.CollectiveCostModel;
import org.multigpulab.device.CollectiveCostModel.Collective;
import org.multigpulab.device.CollectiveCostModel.SystemSpec;
import org.multigpulab.device.Device;
import org.multigpulab.device.DeviceRequest;

/** A time-only epoch takes the simulated time of the same epoch computed for real, to the bit. */
class TimeOnlyEpochTest {

    private static final int IMAGES = 512;
    private static final int BATCH = 256;

    /** One computed epoch of {@code IMAGES} synthetic images on {@code gpus} t4s, in {@code group}: its sim sec. */
    private static double computed(int gpus, AllReduceAlgorithm algorithm, long bucketBytes, ProcessGroup group) {
        List<Device> devices = Backends.open("sim", new DeviceRequest(gpus, Map.of("profile", "t4")));
        Model lenet = Model.named("lenet");
        TrainConfig config = new TrainConfig(1, BATCH, 0.2f, 1, true, false)
                .withAllReduce(algorithm)
                .withBucketBytes(bucketBytes)
                .withProcessGroup(group);
        try (DataParallelTrainer trainer = new DataParallelTrainer(devices, lenet, lenet.initialState(7), config)) {
            return trainer.train(Synthetic.splits(IMAGES, 16), new TrainingListener() {})
                    .simulatedSecPerEpoch();
        } finally {
            devices.forEach(Device::close);
        }
    }

    private static TimeOnlyEpoch.Setup setup(int gpus, int nodes, AllReduceAlgorithm algorithm, long bucketBytes) {
        return new TimeOnlyEpoch.Setup(
                gpus, nodes, "t4", null, null, Model.named("lenet"), BATCH, IMAGES, algorithm, bucketBytes, false);
    }

    @ParameterizedTest(name = "{0} GPUs, {1}, buckets of {2} bytes")
    @CsvSource({"1, naive, 0", "3, naive, 0", "4, ring, 100000", "8, tree, 0", "4, nccl, 100000"})
    void oneNodeAgreesWithAComputedRun(int gpus, String algorithm, long bucketBytes) {
        AllReduceAlgorithm algo = AllReduceAlgorithm.named(algorithm);
        double real = computed(gpus, algo, bucketBytes, ProcessGroup.SINGLE);
        TimeOnlyEpoch.Result timeOnly = TimeOnlyEpoch.run(setup(gpus, 1, algo, bucketBytes), null);
        assertEquals(real, timeOnly.secPerEpoch(), 0.0, "time-only against computed, sec/epoch");
        assertEquals(2, timeOnly.steps());
        for (TimeOnlyEpoch.GpuShare g : timeOnly.gpus()) {
            assertTrue(g.computeSec() > 0 && g.idleSec() >= 0 && g.idleSec() < timeOnly.secPerEpoch(), g.toString());
        }
    }

    @Test
    void nodesAgreeWithAComputedRankZeroAndChargeTheNetworkAsNcclsModel(@TempDir Path dir) throws Exception {
        int nodes = 3, perNode = 2;
        AllReduceAlgorithm naive = AllReduceAlgorithm.NAIVE;
        double real = computed(perNode, naive, 0, ProcessGroup.firstOfAbsent(nodes));
        Path trace = dir.resolve("trace.json");
        TimeOnlyEpoch.Result timeOnly = TimeOnlyEpoch.run(setup(nodes * perNode, nodes, naive, 0), trace);
        assertEquals(real, timeOnly.secPerEpoch(), 0.0, "time-only against computed rank 0 of 3, sec/epoch");
        assertTrue(timeOnly.description().startsWith("3 nodes of 2× T4"), timeOnly.description());

        // each step, LeNet's gradients cross the nodes once, for as long as NCCL's model gives
        long gradientBytes = Model.named("lenet").parameters().stream()
                        .mapToLong(ParameterSpec::size)
                        .sum()
                * Float.BYTES;
        double network = CollectiveCostModel.find()
                .system(new SystemSpec(nodes, nodes, "t4", null, null, 1))
                .estimate(Collective.ALL_REDUCE, gradientBytes, "auto")
                .seconds();
        List<Double> crossings = new ArrayList<>();
        for (JsonElement e : JsonParser.parseString(Files.readString(trace))
                .getAsJsonObject()
                .getAsJsonArray("traceEvents")) {
            JsonObject event = e.getAsJsonObject();
            if (event.has("cat") && event.get("cat").getAsString().equals("network")) {
                crossings.add(event.get("dur").getAsDouble() / 1e6);
            }
        }
        assertEquals(timeOnly.steps(), crossings.size(), "network events in the trace");
        for (double seconds : crossings) {
            assertEquals(network, seconds, network * 1e-9, "one crossing of " + gradientBytes + " bytes");
        }
    }

    @Test
    void theNotebooksHostAddsItsProgramPerDeviceAndItsDataLoader() {
        AllReduceAlgorithm naive = AllReduceAlgorithm.NAIVE;
        TimeOnlyEpoch.Result[] gpuOnly = new TimeOnlyEpoch.Result[2];
        TimeOnlyEpoch.Result[] pytorch = new TimeOnlyEpoch.Result[2];
        for (int i = 0; i < 2; i++) {
            TimeOnlyEpoch.Setup s = setup(i + 1, 1, naive, 0);
            gpuOnly[i] = TimeOnlyEpoch.run(s, null);
            pytorch[i] = TimeOnlyEpoch.run(
                    new TimeOnlyEpoch.Setup(s.gpus(), 1, "t4", null, null, s.model(), BATCH, IMAGES, naive, 0, true),
                    null);
            assertEquals(0, gpuOnly[i].hostProgramSec(), 0.0);
            assertEquals(gpuOnly[i].secPerEpoch(), gpuOnly[i].withDataLoaderSec(), 0.0);
            // the one host thread runs the program before it issues each part's work: never shorter than either
            assertTrue(
                    pytorch[i].secPerEpoch() > gpuOnly[i].secPerEpoch()
                            && pytorch[i].secPerEpoch() >= pytorch[i].hostProgramSec(),
                    "the host's program delays the GPUs: " + pytorch[i] + " against " + gpuOnly[i]);
            assertTrue(pytorch[i].withDataLoaderSec() >= pytorch[i].secPerEpoch());
        }
        // every device's forward, backward and SGD run one after another on the one host thread
        assertTrue(
                pytorch[1].hostProgramSec() > 1.9 * pytorch[0].hostProgramSec(),
                pytorch[1].hostProgramSec() + " s on 2 GPUs, " + pytorch[0].hostProgramSec() + " s on 1");
    }
}
