package org.multigpulab.lessons.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.multigpulab.core.Synthetic;
import org.multigpulab.core.model.HostTensor;
import org.multigpulab.core.model.LeNet;
import org.multigpulab.core.model.ParameterDistance;
import org.multigpulab.core.model.UpdateDistance;
import org.multigpulab.device.Backends;
import org.multigpulab.device.testing.Prerequisite;
import org.multigpulab.lessons.files.RunReport;
import org.multigpulab.lessons.files.SafeTensors;
import org.multigpulab.lessons.plot.Curve;
import org.multigpulab.lessons.plot.PlotFilesCheck;

/** {@code ./lab train} end to end on a slice of the real data. */
class TrainCommandTest {

    @TempDir
    Path dir;

    @BeforeEach
    void needsTheRealData() {
        Synthetic.realDataDir();
    }

    private static final String[] SLICE = {
        "--no-shuffle", "--train-samples", "2560", "--test-samples", "500", "--epochs", "1", "--quiet"
    };

    private List<HostTensor> trainAndSave(String name, String... options) {
        Path file = dir.resolve(name);
        String[] args = Stream.of(
                        new String[] {
                            "train",
                            "--save",
                            file.toString(),
                            "--load",
                            dir.resolve("init.safetensors").toString(),
                            "--plot-dir",
                            dir.resolve("plots").toString()
                        },
                        SLICE,
                        options)
                .flatMap(Arrays::stream)
                .toArray(String[]::new);
        LabRunner.Result r = LabRunner.run(args);
        assertEquals(0, r.exit(), r.err());
        return SafeTensors.read(file);
    }

    /**
     * {@code ./lab train} on the first {@code images} training images and 256 test images for {@code epochs}
     * epochs, plots into {@code dir/plots}; asserts the run succeeded.
     */
    private LabRunner.Result train(int images, int epochs, String... options) {
        String[] slice = {
            "train",
            "--train-samples",
            Integer.toString(images),
            "--test-samples",
            "256",
            "--epochs",
            Integer.toString(epochs),
            "--plot-dir",
            dir.resolve("plots").toString()
        };
        LabRunner.Result r =
                LabRunner.run(Stream.of(slice, options).flatMap(Arrays::stream).toArray(String[]::new));
        assertEquals(0, r.exit(), r.err());
        return r;
    }

    /**
     * One logical GPU, three, and the processor itself train the same model: the same kernels, the sums in
     * another order. Bound: every tensor's update within 1e-4 of one logical GPU's (measured: at most 5.4e-6 with
     * 3 devices, 2.1e-6 on cpu:0).
     */
    @Test
    void oneAndThreeDevicesSaveTheSameParameters() {
        List<HostTensor> init = new LeNet().initialState(5);
        SafeTensors.write(dir.resolve("init.safetensors"), init);
        List<HostTensor> one = trainAndSave("one.safetensors", "--gpus", "1");
        List<HostTensor> three = trainAndSave("three.safetensors", "--gpus", "3", "--debug");
        List<HostTensor> cpu = trainAndSave("cpu.safetensors", "--backend", "cpu");
        UpdateDistance threeVsOne = UpdateDistance.of(init, three, one);
        UpdateDistance cpuVsOne = UpdateDistance.of(init, cpu, one);
        assertTrue(threeVsOne.worst().relative() < 1e-4, "3 devices vs 1: " + threeVsOne);
        assertTrue(cpuVsOne.worst().relative() < 1e-4, "cpu:0 vs sim:0: " + cpuVsOne);
        assertTrue(ParameterDistance.relative(one, init) > 1e-3, "training changed the parameters");
        assertEquals(
                List.of("W1", "b1", "W2", "b2", "W3", "b3", "W4", "b4"),
                one.stream().map(HostTensor::name).toList());
    }

    /**
     * Our OpenCL kernels against the Java ones: the same start, data and order on opencl:0 and on two logical
     * GPUs over cpu give every tensor's update within 3e-4, other kernels than the Java ones (measured with PoCL:
     * at most 7.7e-6, in W2). In CI a missing OpenCL platform fails the test.
     */
    @Test
    void openClAndSimSaveTheSameParameters() {
        var opencl = Backends.find("opencl").availability();
        Prerequisite.require("opencl", opencl.available(), opencl.reason());
        List<HostTensor> init = new LeNet().initialState(9);
        SafeTensors.write(dir.resolve("init.safetensors"), init);
        List<HostTensor> gpu = trainAndSave("opencl.safetensors", "--backend", "opencl", "--gpus", "1");
        List<HostTensor> sim = trainAndSave("sim.safetensors", "--backend", "sim", "--gpus", "2");
        UpdateDistance d = UpdateDistance.of(init, gpu, sim);
        assertTrue(d.worst().relative() < 3e-4, "opencl:0 vs sim over cpu: " + d);
        assertTrue(ParameterDistance.relative(sim, init) > 1e-3, "training changed the parameters");
    }

    /**
     * libtorch as the outside referee of our Java kernels: the same start, data and order on djl (djl:cpu here,
     * a CUDA GPU where there is one) and on two logical GPUs over cpu give every tensor's update within 3e-4,
     * other kernels than the Java ones (measured on djl:cpu: at most 4.5e-6); and four logical GPUs over djl train
     * the same model too (measured: at most 3.9e-6). oneDNN runs its SSE4.1 kernels here (lessons/pom.xml): with
     * its AVX2 ones on an AMD Zen 3 this comparison came to 3.2e-3.
     */
    @Test
    void djlAndSimSaveTheSameParameters() {
        List<HostTensor> init = new LeNet().initialState(4);
        SafeTensors.write(dir.resolve("init.safetensors"), init);
        List<HostTensor> torch = trainAndSave("djl.safetensors", "--backend", "djl", "--gpus", "1");
        List<HostTensor> sim = trainAndSave("sim.safetensors", "--backend", "sim", "--gpus", "2");
        UpdateDistance torchVsSim = UpdateDistance.of(init, torch, sim);
        assertTrue(torchVsSim.worst().relative() < 3e-4, "djl vs sim over cpu: " + torchVsSim);
        List<HostTensor> four =
                trainAndSave("four.safetensors", "--backend", "sim", "--physical", "djl", "--gpus", "4");
        UpdateDistance fourVsSim = UpdateDistance.of(init, four, sim);
        assertTrue(fourVsSim.worst().relative() < 3e-4, "4 logical GPUs over djl vs sim: " + fourVsSim);
    }

    /**
     * {@code --model mlp} trains d2l's MLP through the same trainer: its four tensors saved, the model in the
     * report, and the gradient that crosses the links is the MLP's (203,530 floats a step into device 1).
     */
    @Test
    void trainsTheMlpAndRecordsTheModel() throws Exception {
        Path report = dir.resolve("mlp.json");
        Path saved = dir.resolve("mlp.safetensors");
        LabRunner.Result r = train(
                1024,
                1,
                "--model",
                "mlp",
                "--gpus",
                "2",
                "--quiet",
                "--report",
                report.toString(),
                "--save",
                saved.toString());
        assertTrue(r.out().startsWith("test acc: "), r.out());
        List<HostTensor> params = SafeTensors.read(saved);
        assertEquals(
                List.of("W1", "b1", "W2", "b2"),
                params.stream().map(HostTensor::name).toList());
        assertEquals("[784, 256]", params.getFirst().shapeText());
        RunReport parsed = RunReport.fromJson(Files.readString(report));
        assertEquals("mlp", parsed.config().model());
        assertEquals(
                203_530L * Float.BYTES * (1024 / 256),
                parsed.deviceStats().get(1).bytesFromPeers(),
                "the naive allreduce sends device 1 the whole summed gradient once a step");
    }

    /** {@code --trace} writes a Chrome trace: every logical GPU a process, with named lanes and timed events. */
    @Test
    void writesATraceOfSimulatedTime() throws Exception {
        Path trace = dir.resolve("trace.json");
        LabRunner.Result r = train(
                512,
                1,
                "--gpus",
                "3",
                "--quiet",
                "--bucket-mb",
                "0.2",
                "--allreduce",
                "ring",
                "--trace",
                trace.toString());
        JsonObject json = JsonParser.parseString(Files.readString(trace)).getAsJsonObject();
        Map<String, Integer> byName = new HashMap<>();
        Set<Integer> devices = new HashSet<>();
        for (var e : json.getAsJsonArray("traceEvents")) {
            var o = e.getAsJsonObject();
            if (o.get("ph").getAsString().equals("X")) {
                assertTrue(o.get("dur").getAsDouble() >= 0 && o.get("ts").getAsDouble() >= 0, o.toString());
                devices.add(o.get("pid").getAsInt());
                byName.merge(o.get("name").getAsString().replaceAll(" \\d.*", ""), 1, Integer::sum);
            }
        }
        assertEquals(Set.of(0, 1, 2), devices);
        // 2 steps; LeNet's 0.52 MB of gradients all fit DDP's first bucket, of 1 MiB, whatever the cap
        assertEquals(3 * 2, byName.get("forward"));
        assertEquals(3 * 2, byName.get("allreduce bucket"));
        assertTrue(byName.get("conv2d_forward") > 0 && byName.get("add") > 0, byName.toString());
    }

    /**
     * A global batch smaller than the GPUs: the GPUs past its last image compute nothing, and the run ends as any
     * other, its notebook-host line included (that line's second epoch once refused such a batch after training).
     */
    @Test
    void aBatchSmallerThanTheGpusTrainsToTheEnd() {
        LabRunner.Result r = train(64, 1, "--gpus", "8", "--batch-size", "3");
        assertTrue(r.out().contains(": 64 training and 256 test images, 1 epoch, batch 3, lr 0.2"), r.out());
        assertTrue(r.out().contains("with the notebook's host"), r.out());
        assertTrue(r.out().contains("test acc: "), r.out());
        assertEquals("", r.err().strip());
    }

    /** {@code ./lab simulate} still asks for a batch that gives every GPU an image. */
    @Test
    void simulateAsksForABatchThatReachesEveryGpu() {
        LabRunner.Result r = LabRunner.run("simulate", "--gpus", "8", "--batch-size", "3");
        assertNotEquals(0, r.exit());
        assertTrue(
                r.err()
                        .startsWith("error: a global batch of 3 leaves 5 of the 8 GPUs without an image; use"
                                + " --batch-size 8"),
                r.err());
    }

    @Test
    void printsTheNotebooksLineAndWritesTheReportAndTheCurve() throws Exception {
        Path report = dir.resolve("run.json");
        Path plots = dir.resolve("plots");
        LabRunner.Result r = train(1024, 2, "--gpus", "2", "--report", report.toString(), "--allreduce", "ring");
        List<String> lines = List.of(r.out().strip().split("\n"));
        assertTrue(
                lines.get(lines.size() - 2)
                        .matches("test acc: \\d\\.\\d\\d, \\d+\\.\\d sec/epoch on \\[sim:0, sim:1]"
                                + " \\(simulated 2× T4 over PCIe 3: \\d[.\\d]* sec/epoch\\)"),
                r.out());
        assertEquals(
                "learning curve: " + plots.resolve("learning-curve.png") + ", sec/epoch: "
                        + plots.resolve("sec-per-epoch.png"),
                lines.getLast());
        PlotFilesCheck.assertChart(plots, "sec-per-epoch");
        assertTrue(r.out().contains("epoch 1/2: train loss "), r.out());
        RunReport parsed = RunReport.fromJson(Files.readString(report));
        Curve loss = new Curve("train loss", Curve.YAxis.RIGHT);
        Curve trainAcc = new Curve("train acc"), test = new Curve("test acc");
        for (RunReport.Epoch e : parsed.epochs()) {
            loss.add(e.epoch(), e.trainLoss());
            trainAcc.add(e.epoch(), e.trainAcc());
            test.add(e.epoch(), e.testAcc());
        }
        PlotFilesCheck.assertSeries(plots, "learning-curve", List.of(loss, trainAcc, test)); // the report's numbers
        assertEquals(RunReport.SCHEMA, parsed.schema());
        assertEquals(2, parsed.epochs().size());
        assertEquals(List.of("sim:0", "sim:1"), parsed.devices());
        assertEquals(1024, parsed.config().trainSamples());
        assertEquals("ring", parsed.config().allreduce());
        assertEquals("lenet", parsed.config().model());
        long gradientBytes = 129_068L * Float.BYTES, steps = 2 * (1024 / 256);
        assertEquals(
                gradientBytes * steps,
                parsed.deviceStats().get(1).bytesFromPeers(),
                "a ring of 2 moves the whole gradient once per step into each device");
        assertEquals(parsed.epochs().get(1).testAcc(), parsed.finalResult().testAcc());
        assertTrue(parsed.deviceStats().getFirst().flops() > 0);
        assertEpochKernelsAddUp(parsed, 1024 / 256 * 2); // 4 steps an epoch on each of 2 devices
        assertTrue(Files.readString(report).contains("\"wall_sec_per_epoch\""));
        // Counted from this test JVM's start, so it includes the tests that ran before: bounded by the JVM's age,
        // not by a number of seconds.
        double startup = parsed.finalResult().startupSec();
        double jvmAge = ManagementFactory.getRuntimeMXBean().getUptime() / 1e3;
        assertTrue(
                startup > 0 && startup <= jvmAge,
                "seconds from the JVM's start to the first batch: " + startup + ", JVM's age after the run: " + jvmAge);
        RunReport.Sim sim = parsed.sim();
        assertEquals("t4", sim.profile());
        assertEquals("pcie3", sim.topology());
        assertEquals("ring", sim.algorithm());
        assertEquals((parsed.epochs().get(0).simSec() + parsed.epochs().get(1).simSec()) / 2, sim.secPerEpoch(), 1e-12);
        assertEquals(gradientBytes * steps, sim.devices().get(1).bytesReceived());
        assertEquals(gradientBytes * steps, sim.links().getFirst().bytes(), "each direction of the ring of 2");
        for (RunReport.SimDevice d : sim.devices()) {
            assertTrue(d.computeSec() > 0 && d.commSec() > 0 && d.idleSec() >= 0 && d.peakBytes() > 0, d.toString());
        }
        try (var files = Files.list(dir)) {
            assertEquals(
                    Set.of(report, plots), Set.copyOf(files.toList()), "no temporary file is left beside the report");
        }
    }

    /**
     * Each epoch's kernels: the data gradient of conv2 once a step on each device, {@code launchesPerEpoch} in
     * all, and no kernel's launches or seconds over the epochs more than the devices' totals for the whole run
     * (which also hold the notebook-host epoch's).
     */
    private static void assertEpochKernelsAddUp(RunReport report, long launchesPerEpoch) {
        Map<String, Long> launches = new HashMap<>();
        Map<String, Double> seconds = new HashMap<>();
        for (RunReport.DeviceSummary d : report.deviceStats()) {
            for (RunReport.KernelSummary k : d.kernels()) {
                launches.merge(k.kernel() + "@" + k.flopsPerLaunch(), k.launches(), Long::sum);
                seconds.merge(k.kernel() + "@" + k.flopsPerLaunch(), k.sec(), Double::sum);
            }
        }
        for (RunReport.Epoch e : report.epochs()) {
            long dataGradients = 0;
            for (RunReport.KernelSummary k : e.kernels()) {
                String key = k.kernel() + "@" + k.flopsPerLaunch();
                assertTrue(k.sec() >= 0 && k.launches() > 0, "epoch " + e.epoch() + ": " + k);
                launches.merge(key, -k.launches(), Long::sum);
                seconds.merge(key, -k.sec(), Double::sum);
                if (k.kernel().equals("conv2d_backward_data")) {
                    dataGradients += k.launches();
                }
            }
            assertEquals(launchesPerEpoch, dataGradients, "epoch " + e.epoch() + ": conv2d_backward_data launches");
        }
        launches.forEach((k, left) -> assertTrue(left >= 0, k + ": " + left + " launches more in the epochs"));
        seconds.forEach((k, left) -> assertTrue(left >= -1e-9, k + ": " + left + " s more in the epochs"));
    }
}
