package org.multigpulab.lessons.cli;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.multigpulab.core.model.LeNet;
import org.multigpulab.core.model.Model;
import org.multigpulab.core.parallel.AllReduceAlgorithm;
import org.multigpulab.core.parallel.ReplicaUpdate;
import org.multigpulab.core.train.TrainResult;
import org.multigpulab.lessons.errors.UserError;
import org.multigpulab.lessons.files.AtomicFile;
import org.multigpulab.lessons.lesson.PublishedRuns;
import org.multigpulab.lessons.simulate.KernelFit;
import org.multigpulab.lessons.simulate.ScalingSweep;
import org.multigpulab.lessons.simulate.TimeOnlyEpoch;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code ./lab simulate}: one epoch of the notebook's training on simulated GPUs that compute nothing, up to
 * thousands of GPUs in many nodes, in seconds: sec/epoch, each GPU's share of it, and a trace.
 */
@Command(
        name = "simulate",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Time one epoch of the notebook's training on simulated GPUs without computing: every step's kernels,"
                    + " copies and collectives are issued as in ./lab train and costed by the sim backend's model,"
                    + " so sec/epoch equals a full run's. With --nodes, one node's GPUs are simulated and gradients"
                    + " cross the nodes as train --dist mpi sends them, timed by the NCCL model.",
        },
        footer = {
            "",
            "Examples:",
            "  ./lab simulate --gpus 8 --batch-size 256            what ./lab train --gpus 8 would simulate",
            "  ./lab simulate --gpus 1024 --nodes 128 --profile h100 --trace t.json",
            "  ./lab simulate --profile v100 --gpus 2 --batch-size 256 --pytorch-host --host-cpu xeon-e5-2686v4",
            "                                                       the book's §12.5 beside its published runs",
            "  ./lab simulate --model resnet50 --batch-per-gpu 32 --profile v100 --gpus 16 --nodes 2 --allreduce nccl"
                    + " --bucket-cap-mb 25 --scaling",
            "",
            "Memory: " + TimeOnlyEpoch.MEMORY_COUNTED
                    + " A batch per GPU that does not fit the profile's memory is refused."
        })
final class SimulateCommand implements Callable<Integer> {

    @Mixin
    SystemOptions simulated;

    @ArgGroup(exclusive = true)
    Batch batch = new Batch();

    static final class Batch {
        @Option(names = "--batch-size", paramLabel = "N", description = "Global mini-batch, as train's.")
        Integer global;

        @Option(
                names = "--batch-per-gpu",
                paramLabel = "N",
                description = "Mini-batch per GPU; the global batch is N × --gpus. Default: 256.")
        Integer perGpu;

        int size(int gpus) {
            if (global != null) {
                UserError.requireOneOrMore("--batch-size", global);
            }
            if (perGpu != null) {
                UserError.requireOneOrMore("--batch-per-gpu", perGpu);
            }
            return global != null ? global : (perGpu != null ? perGpu : 256) * gpus;
        }
    }

    @Option(
            names = "--model",
            paramLabel = "NAME",
            defaultValue = "lenet",
            description = "lenet, mlp, mlp-wide, resnet18 (d2l's ResNet-18 of §12.6), or resnet50, resnet101"
                    + " (torchvision's, on 224×224×3 images of 1,000 classes).")
    String modelName;

    @Option(
            names = "--allreduce",
            paramLabel = "ALGO",
            defaultValue = "naive",
            description = "Inside a node: naive, spread, ring, tree or nccl, as train's. Default: ${DEFAULT-VALUE}.")
    String allreduce;

    @Mixin
    BucketOption buckets;

    @Option(
            names = "--parallel",
            paramLabel = "KIND",
            defaultValue = "replicas",
            description = "replicas (every GPU updates its replica from the all-reduced gradients: the notebook,"
                    + " DDP) or dataparallel (nn.DataParallel of §12.6: gradients reduced onto GPU 0, its step, its"
                    + " parameters broadcast). Default: ${DEFAULT-VALUE}.")
    String parallel;

    @Option(
            names = "--train-samples",
            paramLabel = "N",
            defaultValue = "60000",
            description = "Images per epoch. Default: ${DEFAULT-VALUE}, Fashion-MNIST's training set.")
    int trainSamples;

    @Option(
            names = "--iterations",
            paramLabel = "N",
            description = "Time N steps (N × the global batch images) rather than an epoch of --train-samples; the"
                    + " default for resnet50 and resnet101, with N = " + DEFAULT_ITERATIONS
                    + ", as ImageNet is not here.")
    Integer iterations;

    /** Steps timed of a model whose data set is not Fashion-MNIST: all steps of a time-only run take the same time. */
    private static final int DEFAULT_ITERATIONS = 2;

    @Option(
            names = "--process-per-gpu",
            description = "Each GPU's work issued by a host thread of its own, as DDP runs a process per GPU (with"
                    + " --bucket-cap-mb, DDP's whole scheme). Default: one host thread issues every GPU's work, as the"
                    + " notebook's one process does.")
    boolean processPerGpu;

    @Option(
            names = "--scaling",
            description = "Also time 1, 2, 4, … GPUs up to --gpus, each with the same batch per GPU, filling a node"
                    + " (--gpus / --nodes GPUs) before the next: sec/iteration and the scaling efficiency, throughput"
                    + " at N GPUs / (N × throughput at 1).")
    boolean scaling;

    @Option(
            names = "--pytorch-host",
            description = "Charge the host the notebook's own program: Python, PyTorch's dispatcher and autograd, its"
                    + " DataLoader (measured by scripts/pytorch-host.py).")
    boolean pytorchHost;

    @Option(
            names = "--host-cpu",
            paramLabel = "NAME",
            description = "The processor that runs the notebook's host (with --pytorch-host): lab-zen5 (where"
                    + " scripts/pytorch-host.py measured it, the default), xeon-e5-2686v4 (AWS p3, a guess for the"
                    + " book's builds), colab-broadwell, h200-xeon (the first H200's host); scaled by single-thread"
                    + " speed.")
    String hostCpu;

    @Option(names = "--trace", paramLabel = "FILE", description = "The epoch as a Chrome trace (ui.perfetto.dev).")
    Path trace;

    @Option(
            names = "--fit-kernels",
            description = "Fit the GPU kernels' two fitted figures (the share of the FP32 rate reached, the fixed time"
                    + " per kernel) on the notebook's step measured on an H200 at 256 and 32 images, print them with"
                    + " the error of every shard (128 images is the check), and exit.")
    boolean fitKernels;

    @Override
    public Integer call() {
        PrintStream out = System.out;
        if (fitKernels) {
            out.print(KernelFit.of(KernelFit.h200()).table());
            return 0;
        }
        UserError.requireOneOrMore("--train-samples", trainSamples);
        if (trace != null) {
            AtomicFile.checkWritable("--trace", trace);
        }
        simulated.check();
        if (hostCpu != null && !pytorchHost) {
            throw new UserError("--host-cpu is the processor of the notebook's host program; add --pytorch-host");
        }
        int batchSize = batch.size(simulated.gpus);
        // The trainer runs such a batch (the GPUs past its last image compute nothing), but an epoch whose GPUs
        // idle is not a system worth timing
        if (batchSize < simulated.gpus) {
            throw new UserError(
                    "a global batch of " + batchSize + " leaves " + (simulated.gpus - batchSize) + " of the "
                            + simulated.gpus + " GPUs without an image; use --batch-size " + simulated.gpus
                            + " or more, or --batch-per-gpu");
        }
        Model model = Model.named(modelName);
        if (iterations != null) {
            UserError.requireOneOrMore("--iterations", iterations);
        }
        int images = iterations != null
                ? iterations * batchSize
                : model.input().equals(LeNet.INPUT) ? trainSamples : DEFAULT_ITERATIONS * batchSize;
        TimeOnlyEpoch.Setup setup = new TimeOnlyEpoch.Setup(
                simulated.gpus,
                simulated.nodes,
                simulated.profile,
                simulated.topology,
                simulated.nic,
                model,
                batchSize,
                images,
                AllReduceAlgorithm.named(allreduce),
                buckets.bytes(),
                pytorchHost,
                hostCpu,
                replicaUpdate(),
                processPerGpu);
        long start = System.nanoTime();
        TimeOnlyEpoch.Result r = TimeOnlyEpoch.run(setup, trace);
        double wall = (System.nanoTime() - start) / 1e9;
        out.printf(
                Locale.ROOT,
                "%s: %d images in %d step%s of %d (%d per GPU), model %s, %s%n",
                r.description(),
                images,
                r.steps(),
                r.steps() == 1 ? "" : "s",
                batchSize,
                Math.ceilDiv(batchSize, simulated.gpus),
                modelName,
                parallel.equals("dataparallel")
                        ? "nn.DataParallel's reduce onto GPU 0 and broadcast from it"
                        : "allreduce " + allreduce);
        if (simulated.nodes > 1) {
            out.printf(
                    Locale.ROOT,
                    "node 0 of %d simulated (the others hold no larger shards); the allreduce across the nodes from"
                            + " NCCL's model%n",
                    simulated.nodes);
        }
        for (TimeOnlyEpoch.GpuShare g : r.gpus()) {
            out.printf(
                    Locale.ROOT,
                    "  %-8s computing %5.1f%%, on its links %5.1f%%, idle %5.1f%%%n",
                    g.device(),
                    100 * g.computeSec() / r.secPerEpoch(),
                    100 * g.commSec() / r.secPerEpoch(),
                    100 * g.idleSec() / r.secPerEpoch());
        }
        out.printf(
                Locale.ROOT,
                "simulated: %s sec/epoch, %s sec/iteration (this took %.1f s, nothing computed)%n",
                TrainResult.seconds(r.secPerEpoch()),
                TrainResult.seconds(r.secPerIteration()),
                wall);
        if (pytorchHost) {
            out.printf(
                    Locale.ROOT,
                    "with the notebook's host: its Python, dispatcher and autograd %s s of it; with its DataLoader"
                            + " %s sec/epoch%n",
                    TrainResult.seconds(r.hostProgramSec()),
                    TrainResult.seconds(r.withDataLoaderSec()));
            bookRange(batchSize)
                    .ifPresent(book -> out.printf(
                            Locale.ROOT,
                            "the book: %s; this prediction %s sec/epoch %s it%n",
                            book.describe(),
                            TrainResult.seconds(r.withDataLoaderSec()),
                            book.holds(r.withDataLoaderSec()) ? "inside" : "outside"));
        }
        if (trace != null) {
            out.println("trace: " + trace);
        }
        if (scaling) {
            printScaling(out, setup);
        }
        return 0;
    }

    /** The weak-scaling table of {@code setup}'s training from one GPU to all of them. */
    private static void printScaling(PrintStream out, TimeOnlyEpoch.Setup setup) {
        out.printf(
                Locale.ROOT,
                "scaling, %d images per GPU (efficiency: throughput at N GPUs / (N × throughput at 1)):%n",
                setup.batchPerGpu());
        for (ScalingSweep.Point p : ScalingSweep.run(setup)) {
            out.printf(
                    Locale.ROOT,
                    "  %3d GPU%s on %d node%s: %s sec/iteration, %8.0f images/s, efficiency %5.1f%%%n",
                    p.gpus(),
                    p.gpus() == 1 ? " " : "s",
                    p.nodes(),
                    p.nodes() == 1 ? " " : "s",
                    TrainResult.seconds(p.secPerIteration()),
                    p.imagesPerSec(),
                    100 * p.efficiency());
        }
    }

    private ReplicaUpdate replicaUpdate() {
        return switch (parallel) {
            case "replicas" -> ReplicaUpdate.EACH;
            case "dataparallel" -> {
                if (simulated.nodes > 1 || buckets.bytes() > 0) {
                    throw new UserError("--parallel dataparallel runs in one node without buckets, as nn.DataParallel;"
                            + " leave out --nodes and --bucket-cap-mb, or use --parallel replicas");
                }
                yield ReplicaUpdate.FROM_DEVICE_0;
            }
            default -> throw new UserError("--parallel must be replicas or dataparallel, not '" + parallel + "'");
        };
    }

    /** The book's published V100 runs of this setting, where the book ran it (all of an epoch, on one node). */
    private Optional<PublishedRuns.Range> bookRange(int batchSize) {
        // §12.6 sums its gradients with nn.DataParallel, which on one GPU runs the model alone
        boolean asTheBook = simulated.profile.equalsIgnoreCase("v100")
                && simulated.nodes == 1
                && trainSamples == 60000
                && simulated.topology == null
                && (!modelName.equals("resnet18") || simulated.gpus == 1 || parallel.equals("dataparallel"));
        return asTheBook ? PublishedRuns.forSetting(modelName, simulated.gpus, batchSize) : Optional.empty();
    }
}
