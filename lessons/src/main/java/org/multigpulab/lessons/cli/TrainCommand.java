package org.multigpulab.lessons.cli;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import org.multigpulab.core.data.BatchIterator;
import org.multigpulab.core.data.FashionMnist;
import org.multigpulab.core.dist.ProcessGroup;
import org.multigpulab.core.model.HostTensor;
import org.multigpulab.core.model.LeNet;
import org.multigpulab.core.model.Model;
import org.multigpulab.core.optim.Optimizer;
import org.multigpulab.core.parallel.AllReduceAlgorithm;
import org.multigpulab.core.parallel.ReplicaUpdate;
import org.multigpulab.core.parallel.ZeroStage;
import org.multigpulab.core.train.Checkpoint;
import org.multigpulab.core.train.DataParallelTrainer;
import org.multigpulab.core.train.TrainConfig;
import org.multigpulab.core.train.TrainingState;
import org.multigpulab.device.Device;
import org.multigpulab.lessons.console.EpochLog;
import org.multigpulab.lessons.console.ProgressBars;
import org.multigpulab.lessons.errors.UserError;
import org.multigpulab.lessons.files.AtomicFile;
import org.multigpulab.lessons.files.CheckpointFile;
import org.multigpulab.lessons.files.ChromeTrace;
import org.multigpulab.lessons.files.EpochKernels;
import org.multigpulab.lessons.files.KillPoints;
import org.multigpulab.lessons.files.RunReport;
import org.multigpulab.lessons.files.SafeTensors;
import org.multigpulab.lessons.plot.Curve;
import org.multigpulab.lessons.plot.EpochTimes;
import org.multigpulab.lessons.plot.LearningCurve;
import org.multigpulab.lessons.run.TrainingRun;
import org.multigpulab.lessons.setup.DataSetup;
import org.multigpulab.lessons.setup.DeviceSetup;
import org.multigpulab.lessons.setup.PlotDir;
import org.multigpulab.lessons.simulate.NotebookHost;
import org.multigpulab.lessons.simulate.TimeOnlyEpoch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ./lab train}: the notebook's {@code train(num_gpus, batch_size, lr)} on any backend, ending with the
 * notebook's line {@code test acc: 0.74, 4.4 sec/epoch on [sim:0, sim:1]}; the notebook's LeNet, or d2l's MLP.
 */
@Command(
        name = "train",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Train the notebook's LeNet (or d2l's MLP, --model mlp) on Fashion-MNIST with data parallelism"
                    + " over several devices.",
            "Prints a line per epoch and ends with the notebook's line, e.g.",
            "  test acc: 0.74, 4.4 sec/epoch on [sim:0, sim:1] (simulated 2× T4 over PCIe 3: 0.22 sec/epoch)",
            "On --backend sim the time in brackets is what the modelled GPUs would take (see --profile)."
        },
        footer = {
            "",
            "Examples:",
            "  ./lab train --gpus 2 --epochs 3                  two simulated GPUs over the CPU",
            "  ./lab train --backend cpu                        one device: the processor",
            "  ./lab train --gpus 4 --profile a100 --allreduce ring   four simulated A100s over NVSwitch",
            "  ./lab train --model mlp                          d2l's MLP instead of LeNet, same trainer",
            "  ./lab train --bucket-cap-mb 25 --trace trace.json    DDP's buckets; open the trace in Perfetto",
            "  ./lab train --no-shuffle --train-samples 2560 --epochs 1 --save p.safetensors"
        })
final class TrainCommand implements Callable<Integer> {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @CommandLine.Mixin
    DeviceOptions devicesOptions;

    @Option(
            names = "--model",
            paramLabel = "NAME",
            defaultValue = "lenet",
            description = "What to train: lenet (the notebook's LeNet: two convolutions, 129,068 parameters) or mlp"
                    + " (d2l's multilayer perceptron 784-256-10 with ReLU, 203,530 parameters)."
                    + " Default: ${DEFAULT-VALUE}.")
    String modelName;

    @Option(names = "--epochs", paramLabel = "N", defaultValue = "5", description = "Default: ${DEFAULT-VALUE}.")
    int epochs;

    @Option(
            names = "--batch-size",
            paramLabel = "N",
            defaultValue = "256",
            description = "Global mini-batch, split over the devices. Default: ${DEFAULT-VALUE}.")
    int batchSize;

    @Option(
            names = "--lr",
            paramLabel = "RATE",
            description = "Learning rate. Default: 0.2 (the notebook's) for sgd, 1e-3 for adam and adamw.")
    Float lr;

    @CommandLine.Mixin
    OptimizerOptions optimizerOptions;

    @CommandLine.Mixin
    StepOptions stepOptions;

    @Option(
            names = "--seed",
            paramLabel = "N",
            defaultValue = "1",
            description = "The random seed of the initial parameters and the shuffling. Default: ${DEFAULT-VALUE}.")
    long seed;

    @CommandLine.Mixin
    DataOptions dataOptions;

    @Option(
            names = "--allreduce",
            paramLabel = "ALGO",
            defaultValue = "naive",
            description = "How gradients are summed: naive (the notebook's, via device 0), spread (each parameter on"
                    + " its own device), ring, tree, or nccl (NCCL's: a ring's data, timed on sim by NCCL's model as"
                    + " one call). Default: ${DEFAULT-VALUE}.")
    String allreduce;

    @CommandLine.Mixin
    BucketOption buckets;

    @Option(
            names = "--trace",
            paramLabel = "FILE",
            description = "With --backend sim: write the simulated time of every kernel and copy as a Chrome trace"
                    + " (open it in ui.perfetto.dev).")
    Path trace;

    @Option(
            names = "--dist",
            paramLabel = "KIND",
            defaultValue = "none",
            description = "none, or mpi: train together with the other processes that mpirun (or srun --mpi=pmix)"
                    + " started, each on its own --gpus devices, e.g. mpirun -np 4 ./lab train --dist mpi --gpus 2."
                    + " Default: ${DEFAULT-VALUE}.")
    String dist;

    @Option(names = "--no-shuffle", description = "Keep the data set's order instead of shuffling every epoch.")
    boolean noShuffle;

    @Option(names = "--load", paramLabel = "FILE", description = "Start from parameters in a safetensors file.")
    Path load;

    @Option(
            names = "--save",
            paramLabel = "FILE",
            description = "Save the trained parameters as safetensors (LeNet: W1 b1 ... b4; MLP: W1 b1 W2 b2).")
    Path save;

    @CommandLine.Mixin
    CheckpointOptions checkpoints;

    @Option(names = "--report", paramLabel = "FILE", description = "Write a JSON run report (schema in the README).")
    Path report;

    @Option(
            names = "--plot-dir",
            paramLabel = "DIR",
            description =
                    "Where the learning curve and the sec/epoch chart go (PNG and SVG). Default: runs/<date>T<time>/.")
    Path plotDir;

    @Option(
            names = "--no-plot",
            description = "Draw no charts: for a machine without fonts or Java's desktop module, such as the"
                    + " GPU check's (scripts/gpu/).")
    boolean noPlot;

    @Option(names = "--quiet", description = "Print only the final line; no progress bar, no window.")
    boolean quiet;

    @Option(
            names = "--debug",
            description = "Check after every step that all replicas agree; show stack traces of errors.")
    boolean debug;

    @Override
    public Integer call() {
        PrintStream out = System.out;
        DeviceSetup deviceSetup = devicesOptions.setup();
        int devices = devicesOptions.gpus != null ? devicesOptions.gpus : deviceSetup.defaultCount();
        UserError.requireOneOrMore("--gpus", devices);
        UserError.requireOneOrMore("--epochs", epochs);
        UserError.requireOneOrMore("--batch-size", batchSize);
        Optimizer optimizer = optimizerOptions.optimizer();
        if (lr == null) {
            lr = optimizer.defaultLr();
        } else if (!Float.isFinite(lr) || lr <= 0) {
            // picocli read the text as a float: 1e40 is Infinity by then
            throw new UserError("--lr must be a positive number such as 0.2 (a float: at most 3.4e38), not "
                    + spec.commandLine()
                            .getParseResult()
                            .matchedOption("--lr")
                            .originalStringValues()
                            .getLast());
        }
        Model model = Model.named(modelName);
        AllReduceAlgorithm allReduce = AllReduceAlgorithm.named(allreduce);
        buckets.bytes(); // checked before anything starts
        stepOptions.check();
        if (trace != null) {
            AtomicFile.checkWritable("--trace", trace);
            deviceSetup = deviceSetup.traced();
        }
        if (save != null) {
            AtomicFile.checkWritable("--save", save);
        }
        if (report != null) {
            AtomicFile.checkWritable("--report", report);
        }
        checkpoints.check(load);
        checkDistinctOutputs();
        ProcessGroup group = joinGroup();
        try {
            return train(group, deviceSetup, devices, model, allReduce, optimizer);
        } catch (RuntimeException | Error e) {
            if (group.size() > 1) {
                // the other ranks wait in a collective for this one: end them all, with this rank's reason. An
                // Error too (out of memory, a failed assertion): left to MPI_Finalize below, it would hang the run
                group.abort("rank " + group.rank() + ": error: " + Lab.message(e), Lab.exitCode(e));
            }
            throw e;
        } finally {
            group.close();
        }
    }

    /**
     * A process that mpirun (Open MPI: {@code OMPI_COMM_WORLD_SIZE}) or another launcher (MPICH's, Slurm's with
     * PMI: {@code PMI_SIZE}) started as one of several, without {@code --dist mpi}, would train alone beside the others
     * and write the same files: refused before it starts.
     */
    static void checkNotOneOfMany(String dist, Map<String, String> env) {
        if (!dist.equals("none")) {
            return;
        }
        for (String size : new String[] {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"}) {
            String value = env.get(size);
            if (value != null && !value.strip().equals("1") && !value.isBlank()) {
                throw new UserError("this process is one of " + value.strip() + " that a launcher started (" + size
                        + "), but without --dist mpi each would train alone and write the same files; add --dist mpi");
            }
        }
    }

    /** Each output its own file: one option's file written over another's would lose it. */
    private void checkDistinctOutputs() {
        Map<Path, String> outputs = new HashMap<>();
        String[] names = {"--save", "--report", "--trace", "--checkpoint"};
        Path[] files = {save, report, trace, checkpoints.checkpoint};
        for (int i = 0; i < names.length; i++) {
            if (files[i] == null) {
                continue;
            }
            String earlier = outputs.putIfAbsent(files[i].toAbsolutePath().normalize(), names[i]);
            if (earlier != null) {
                throw new UserError(earlier + " and " + names[i] + " both name " + files[i]
                        + ", and the second would overwrite the first; give each its own file");
            }
        }
    }

    private ProcessGroup joinGroup() {
        checkNotOneOfMany(dist, System.getenv());
        try {
            return ProcessGroup.join(dist);
        } catch (IllegalArgumentException e) {
            throw new UserError("--dist " + dist + ": " + e.getMessage());
        }
    }

    private int train(
            ProcessGroup group,
            DeviceSetup deviceSetup,
            int devices,
            Model model,
            AllReduceAlgorithm allReduce,
            Optimizer optimizer) {
        PrintStream out = System.out;
        // Only rank 0 prints, plots, saves and reports; the others train in silence.
        boolean lead = group.rank() == 0;
        boolean talk = lead && !quiet;
        DataSetup data = DataSetup.load(dataOptions.data, dataOptions.trainSamples, dataOptions.testSamples);
        FashionMnist.Splits splits = data.splits();
        TrainConfig config = stepOptions
                .apply(new TrainConfig(epochs, batchSize, lr, seed, !noShuffle, debug))
                .withOptimizer(optimizer)
                .withAllReduce(allReduce)
                .withBucketBytes(buckets.bytes())
                .withProcessGroup(group);
        Path plots = lead && !noPlot ? PlotDir.choose(plotDir) : null;
        boolean checkpointed = checkpoints.checkpoint != null || checkpoints.resume != null;
        Checkpoint.Run identity = checkpointed ? Checkpoint.Run.of(model, config, splits, allreduce) : null;
        CheckpointFile.Placement placement = new CheckpointFile.Placement(
                devicesOptions.backend,
                devicesOptions.physical,
                devices,
                group.size(),
                plots == null ? null : plots.toString());
        TrainingState from = TrainingState.START;
        List<HostTensor> init;
        List<HostTensor> optimizerState = List.of();
        if (checkpoints.resume != null) {
            CheckpointOptions.Resumed resumed = checkpoints.read(group, model, identity);
            from = resumed.state();
            init = resumed.params();
            optimizerState = resumed.optimizer();
            if (talk) {
                out.println(resumeLine(
                        resumed, BatchIterator.batchesPerEpoch(splits.train().count(), batchSize), placement));
            }
        } else {
            init = load == null ? model.initialState(seed) : loadParams(load, model);
        }

        List<Device> opened = deviceSetup.open(devices);
        StartupClock startup = new StartupClock();
        EpochKernels epochKernels = new EpochKernels(opened);
        TrainingRun run = TrainingRun.on(opened, model, init, config)
                .listener(startup)
                .listener(epochKernels)
                .progressBars(talk && ProgressBars.wanted(quiet))
                .checkpoints(from, optimizerState, checkpoints.sink(group, identity, placement));
        if (KillPoints.enabled()) {
            run.listener(KillPoints.listener());
        }
        List<String> ids = opened.stream().map(d -> d.id().toString()).toList();
        if (talk) {
            run.listener(new EpochLog(out));
            out.println("training on " + ids
                    + (group.size() > 1
                            ? " in each of " + group.size() + " processes (" + group.description() + ")"
                            : "")
                    + ": " + splits.train().count() + " training and "
                    + splits.test().count() + " test images, "
                    + epochs + (epochs == 1 ? " epoch" : " epochs") + ", batch " + batchSize + ", lr " + lr
                    + ", model " + model.name()
                    + (optimizer.equals(Optimizer.NOTEBOOK_SGD) ? "" : ", optimizer " + optimizer)
                    + (config.accumulate() == 1
                            ? ""
                            : ", " + config.accumulate() + " micro-batches a step (" + config.accumulate() * batchSize
                                    + " images)")
                    + (config.zero() == ZeroStage.NONE
                            ? ""
                            : ", ZeRO stage " + config.zero().number()));
        }
        LearningCurve curve = null;
        if (plots != null) {
            // d2l's three curves, in its legend's order: train loss, train acc, test acc
            Curve loss = new Curve("train loss (right axis)", Curve.YAxis.RIGHT);
            Curve train = new Curve("train acc"), test = new Curve("test acc");
            String name = model.name() + " on " + ids;
            curve = new LearningCurve(name, plots, "learning-curve", talk, List.of(loss, train, test));
            run.listener(curve.listener(test, train, loss));
            run.listener(new EpochTimes("sec/epoch, " + name, plots, "sec-per-epoch"));
        }
        run.train(splits, (trainer, result) -> {
            // under ZeRO stage 3 the parameters are gathered from every rank's chunks: every rank takes part
            List<HostTensor> trained = save != null ? trainer.state() : null;
            if (!lead) {
                return null;
            }
            // a second, time-only epoch: only when its line is printed or its figure reported
            TimeOnlyEpoch.Result withHost = talk || report != null
                    ? withNotebookHost(
                            trainer,
                            devices,
                            group.size(),
                            model,
                            splits.train().count(),
                            allReduce)
                    : null;
            if (withHost != null && talk) {
                out.println(NotebookHost.line(withHost, result.simulatedSecPerEpoch(), devices * group.size()));
            }
            out.println(result.summaryLine()
                    + (group.size() > 1 ? String.format(Locale.ROOT, " × %d processes", group.size()) : ""));
            if (save != null) {
                SafeTensors.write(save, trained);
            }
            if (trace != null) {
                ChromeTrace.write(trace, trainer.timeline().orElseThrow());
            }
            if (report != null) {
                RunReport.of(
                                reportConfig(devices, splits, data),
                                result,
                                epochKernels,
                                startup.seconds(),
                                opened,
                                withHost == null ? null : withHost.withDataLoaderSec(),
                                dist.equals("none")
                                        ? null
                                        : new RunReport.Dist(
                                                dist,
                                                group.size(),
                                                group.description(),
                                                trainer.crossRankSeconds(),
                                                trainer.crossRankCalls()))
                        .write(report);
            }
            if (talk && plots != null) {
                out.println("learning curve: " + plots.resolve("learning-curve.png") + ", sec/epoch: "
                        + plots.resolve("sec-per-epoch.png"));
            }
            return null;
        });
        if (curve != null && curve.shown()) {
            // the notebook's figure stays below its cell; here the window stays until the student closes it
            out.println("the learning curve stays on screen: close its window to finish");
            curve.awaitClosed();
        }
        return 0;
    }

    /**
     * On simulated GPUs, the same epoch timed again without computing, with the host running the notebook's own
     * program (Python, PyTorch, its DataLoader; the sim backend's {@code host-model=pytorch}); null on other
     * devices, on the measured {@code host} profile, for other models than the notebook's LeNet, whose Python
     * costs were not measured, and for steps the notebook does not take (accumulated, or sharded by ZeRO).
     * {@code nodes} processes are as many nodes. On T4s the host is Colab's processor, where the notebook ran.
     */
    private TimeOnlyEpoch.Result withNotebookHost(
            DataParallelTrainer trainer,
            int devices,
            int nodes,
            Model model,
            int images,
            AllReduceAlgorithm allReduce) {
        if (trainer.timeline().isEmpty()
                || "host".equalsIgnoreCase(devicesOptions.profile)
                || !(model instanceof LeNet)
                || stepOptions.accumulate != 1
                || stepOptions.zero != 0) {
            return null;
        }
        String profile = devicesOptions.profile == null ? "t4" : devicesOptions.profile;
        return TimeOnlyEpoch.run(
                new TimeOnlyEpoch.Setup(
                        devices * nodes,
                        nodes,
                        profile,
                        devicesOptions.topology,
                        null,
                        model,
                        batchSize,
                        images,
                        allReduce,
                        buckets.bytes(),
                        true,
                        NotebookHost.hostCpu(profile),
                        ReplicaUpdate.EACH,
                        false),
                null);
    }

    /** The options of this run, as the report records them. */
    private RunReport.Config reportConfig(int devices, FashionMnist.Splits splits, DataSetup data) {
        return new RunReport.Config(
                devicesOptions.backend,
                devicesOptions.physical,
                devices,
                allreduce,
                buckets.megabytes,
                epochs,
                batchSize,
                lr,
                seed,
                !noShuffle,
                splits.train().count(),
                splits.test().count(),
                data.dir().toString(),
                load == null ? null : load.toString(),
                modelName);
    }

    /**
     * {@code resuming FILE at epoch 2, batch 7 of 16}, and what changed since the checkpoint: {@code (devices per
     * process 2 → 1, processes 1 → 2)}.
     */
    private String resumeLine(CheckpointOptions.Resumed resumed, int batches, CheckpointFile.Placement now) {
        TrainingState at = resumed.state();
        List<String> changes = now.changesSince(resumed.placement());
        return "resuming " + checkpoints.resume + " at epoch " + at.epoch() + ", batch " + at.batchesDone() + " of "
                + batches + (changes.isEmpty() ? "" : " (" + String.join(", ", changes) + ")");
    }

    private static List<HostTensor> loadParams(Path file, Model model) {
        List<HostTensor> tensors = SafeTensors.read(file);
        return SafeTensors.matching(
                "--load", file, tensors, model.stateNames(), model.stateShapes(), whoseState(tensors, model));
    }

    /** Which other model {@code tensors} are the whole state of, as a hint: {@code it is LeNet's: --model lenet}. */
    static String whoseState(List<HostTensor> tensors, Model model) {
        List<String> names = tensors.stream().map(HostTensor::name).sorted().toList();
        return Model.all().stream()
                .filter(m -> !m.name().equals(model.name()))
                .filter(m -> m.stateNames().stream().sorted().toList().equals(names))
                .findFirst()
                .map(m -> "It holds " + m.name() + "'s state: give --model "
                        + m.name().toLowerCase(Locale.ROOT))
                .orElse("");
    }
}
