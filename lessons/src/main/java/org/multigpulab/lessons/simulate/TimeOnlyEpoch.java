package org.multigpulab.lessons.simulate;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.IntStream;
import org.multigpulab.core.data.Dataset;
import org.multigpulab.core.data.FashionMnist;
import org.multigpulab.core.data.ImageShape;
import org.multigpulab.core.dist.ProcessGroup;
import org.multigpulab.core.model.Model;
import org.multigpulab.core.parallel.AllReduceAlgorithm;
import org.multigpulab.core.parallel.ReplicaUpdate;
import org.multigpulab.core.train.TrainConfig;
import org.multigpulab.core.train.TrainingListener;
import org.multigpulab.device.Backends;
import org.multigpulab.device.Device;
import org.multigpulab.device.DeviceInfo;
import org.multigpulab.device.DeviceRequest;
import org.multigpulab.device.OutOfDeviceMemoryException;
import org.multigpulab.device.Timeline;
import org.multigpulab.lessons.errors.UserError;
import org.multigpulab.lessons.files.ChromeTrace;
import org.multigpulab.lessons.run.TrainingRun;

/**
 * One epoch of the notebook's data-parallel training, timed on simulated GPUs that compute nothing (the {@code sim}
 * backend's {@code compute=off}): the trainer issues every step's kernels, copies and collectives exactly as in a
 * real run, each costed from the FLOPs and bytes its {@code KernelOp} computes from the shapes, so the simulated
 * time is the full run's, to the bit, in a fraction of its wall time.
 *
 * <p>With several nodes, one node's GPUs are simulated, and the trainer sums their gradients across the nodes as
 * {@code train --dist mpi} sums them across processes (within the node, from the host across the nodes, within
 * the node again), the network's time from NCCL's model. The node simulated is the first, which holds the
 * largest shards (the batch is split as {@code torch.chunk} splits it, larger parts first), so the others are
 * ready for the allreduce across the nodes no later than it is.
 */
public final class TimeOnlyEpoch {

    /**
     * What to simulate: {@code gpus} in all over {@code nodes} nodes of GPUs of {@code profile} joined by
     * {@code topology} (null: the profile's) and between nodes by network cards {@code nic} (null: the DGX's);
     * training {@code model} on {@code trainSamples} images in global batches of {@code batchSize}, gradients summed
     * with {@code allReduce}, in buckets of {@code bucketBytes} (0: every parameter after the backward pass); the
     * host only launching, or with {@code pytorchHost} running the notebook's PyTorch program (the sim backend's
     * {@code host-model=pytorch}) on processor {@code hostCpu} (the sim's {@code host-cpu}; null: the one its
     * figures were measured on); the parameters updated on every replica, or as {@code replicaUpdate} says
     * ({@code nn.DataParallel}'s on device 0); the GPUs' work issued by one host thread (the notebook's process) or,
     * with {@code processPerGpu}, each GPU's by its own (DDP's process per GPU; the sim backend's
     * {@code hosts=per-gpu}).
     */
    public record Setup(
            int gpus,
            int nodes,
            String profile,
            String topology,
            String nic,
            Model model,
            int batchSize,
            int trainSamples,
            AllReduceAlgorithm allReduce,
            long bucketBytes,
            boolean pytorchHost,
            String hostCpu,
            ReplicaUpdate replicaUpdate,
            boolean processPerGpu) {

        public Setup {
            if (gpus < 1 || nodes < 1 || gpus % nodes != 0) {
                throw new UserError(gpus + " GPUs do not split evenly over " + nodes
                        + " nodes; choose --gpus a multiple of --nodes (both 1 or more)");
            }
        }

        /**
         * The setup with the notebook's host, if any, on the processor its figures were measured on, every replica
         * updating itself.
         */
        public Setup(
                int gpus,
                int nodes,
                String profile,
                String topology,
                String nic,
                Model model,
                int batchSize,
                int trainSamples,
                AllReduceAlgorithm allReduce,
                long bucketBytes,
                boolean pytorchHost) {
            this(
                    gpus,
                    nodes,
                    profile,
                    topology,
                    nic,
                    model,
                    batchSize,
                    trainSamples,
                    allReduce,
                    bucketBytes,
                    pytorchHost,
                    null,
                    ReplicaUpdate.EACH,
                    false);
        }

        /** The same, each GPU's work issued by a host thread of its own: a process per GPU, as DDP runs. */
        public Setup withProcessPerGpu() {
            return new Setup(
                    gpus,
                    nodes,
                    profile,
                    topology,
                    nic,
                    model,
                    batchSize,
                    trainSamples,
                    allReduce,
                    bucketBytes,
                    pytorchHost,
                    hostCpu,
                    replicaUpdate,
                    true);
        }

        public int gpusPerNode() {
            return gpus / nodes;
        }

        /** Images per GPU in a step (the first GPUs' share, where the batch does not split evenly). */
        public int batchPerGpu() {
            return Math.ceilDiv(batchSize, gpus);
        }

        /**
         * The same training on {@code gpus} GPUs over {@code nodes} nodes, each GPU with this one's batch and the
         * epoch as many steps: DDP's weak scaling, what a scaling efficiency compares.
         */
        public Setup on(int gpus, int nodes) {
            int steps = Math.ceilDiv(trainSamples, batchSize);
            int batch = batchPerGpu() * gpus;
            return new Setup(
                    gpus,
                    nodes,
                    profile,
                    topology,
                    nic,
                    model,
                    batch,
                    steps * batch,
                    allReduce,
                    bucketBytes,
                    pytorchHost,
                    hostCpu,
                    replicaUpdate,
                    processPerGpu);
        }
    }

    /**
     * The epoch's simulated seconds and steps, the system as the model describes it, and for each GPU of the
     * simulated node how the epoch's time went: computing, on its links, idle. With the notebook's host program,
     * {@code hostProgramSec} is its code's share of the epoch and {@code withDataLoaderSec} the epoch with its data
     * loader too; else they are 0 and {@code secPerEpoch}.
     */
    public record Result(
            String description,
            int steps,
            double secPerEpoch,
            double hostProgramSec,
            double withDataLoaderSec,
            List<GpuShare> gpus) {

        /** Simulated seconds per step. */
        public double secPerIteration() {
            return secPerEpoch / steps;
        }
    }

    /** One GPU's share of the epoch, in simulated seconds. */
    public record GpuShare(String device, double computeSec, double commSec, double idleSec) {}

    private TimeOnlyEpoch() {}

    /** Simulates one epoch of {@code setup}; with {@code trace} not null, writes its Chrome trace there. */
    public static Result run(Setup setup, Path trace) {
        return run(setup, trace, Map.of());
    }

    /** The same, with the sim backend's {@code simOptions} too (a figure of its model, for a fit). */
    public static Result run(Setup setup, Path trace, Map<String, String> simOptions) {
        Map<String, String> options = new HashMap<>(simOptions);
        options.put("compute", "off");
        options.put("profile", setup.profile());
        if (setup.topology() != null) {
            options.put("topology", setup.topology());
        }
        if (setup.nic() != null) {
            options.put("nic", setup.nic());
        }
        if (trace != null) {
            options.put("trace", "on");
        }
        if (setup.pytorchHost()) {
            options.put(
                    "host-model",
                    setup.replicaUpdate() == ReplicaUpdate.FROM_DEVICE_0 ? "pytorch-dataparallel" : "pytorch");
            if (setup.hostCpu() != null) {
                options.put("host-cpu", setup.hostCpu());
            }
        }
        if (setup.processPerGpu()) {
            options.put("hosts", "per-gpu");
        }
        List<Device> devices = Backends.open("sim", new DeviceRequest(setup.gpusPerNode(), options));
        try {
            return run(setup, trace, devices);
        } catch (RuntimeException e) {
            OutOfDeviceMemoryException full = outOfMemory(e);
            if (full == null) {
                throw e;
            }
            throw new UserError(tooLarge(setup, devices.getFirst().info(), full), e);
        }
    }

    /** What a simulated GPU's memory holds, as the sim backend counts the trainer's buffers: for a command's help. */
    public static final String MEMORY_COUNTED = "A GPU holds the parameters, their gradients, the batch, every"
            + " tensor the forward pass makes (until the step ends) and a few of their gradients at a time (each"
            + " freed once its op's backward step ran); not PyTorch's in-place ReLU and residual sum (which keep fewer"
            + " tensors), its caching allocator, cuDNN's workspaces or the CUDA context.";

    /** One line: the batch per GPU that did not fit, what it needed at least, what the GPU has, what to do. */
    private static String tooLarge(Setup setup, DeviceInfo gpu, OutOfDeviceMemoryException full) {
        double gib = 1 << 30;
        long inUse = gpu.memoryBytes() - full.freeBytes();
        return String.format(
                Locale.ROOT,
                "%s at %d images per GPU needs more than %.1f GiB on each GPU, and a %s has %.1f GiB; use a"
                        + " smaller --batch-per-gpu, or a GPU with more memory (--profile a100 or h100: 80 GiB)",
                setup.model().name(),
                setup.batchPerGpu(),
                (inUse + full.requestedBytes()) / gib,
                gpu.description().replaceFirst("^logical ", "").replaceFirst(", time only$", ""),
                gpu.memoryBytes() / gib);
    }

    private static OutOfDeviceMemoryException outOfMemory(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof OutOfDeviceMemoryException full) {
                return full;
            }
        }
        return null;
    }

    private static Result run(Setup setup, Path trace, List<Device> devices) {
        TrainConfig config = new TrainConfig(1, setup.batchSize(), 0.2f, 1, false, false)
                .withAllReduce(setup.allReduce())
                .withBucketBytes(setup.bucketBytes())
                .withReplicaUpdate(setup.replicaUpdate())
                .withProcessGroup(setup.nodes() == 1 ? ProcessGroup.SINGLE : ProcessGroup.firstOfAbsent(setup.nodes()));
        Timeline timeline = devices.getFirst().timeline().orElseThrow();
        EpochShares shares = new EpochShares(timeline);
        return TrainingRun.on(devices, setup.model(), setup.model().initialState(1), config)
                .listener(shares)
                .train(blank(setup.model().input(), setup.trainSamples()), (trainer, result) -> {
                    if (trace != null) {
                        ChromeTrace.write(trace, timeline);
                    }
                    double epoch = result.simulatedSecPerEpoch();
                    double host = shares.hostProgramSec();
                    return new Result(
                            timeline.description(),
                            shares.steps,
                            epoch,
                            host,
                            timeline.epochWithHostProgram(epoch, host, setup.trainSamples()),
                            shares.gpus());
                });
    }

    /**
     * Images of the right size whose values do not matter, as nothing is computed; the test set, which the trainer
     * evaluates after the timed epoch, is one image.
     */
    public static FashionMnist.Splits blank(ImageShape image, int trainSamples) {
        int pixels = image.length();
        return new FashionMnist.Splits(
                new Dataset("blank", new byte[trainSamples * pixels], new byte[trainSamples], trainSamples, image),
                new Dataset("blank", new byte[pixels], new byte[1], 1, image));
    }

    /** Each GPU's time from the epoch's start to its last step. */
    private static final class EpochShares implements TrainingListener {
        private final Timeline timeline;
        private List<Timeline.DeviceTime> start;
        private List<Timeline.DeviceTime> end;
        private double hostStart;
        private double hostEnd;
        private int steps;

        EpochShares(Timeline timeline) {
            this.timeline = timeline;
        }

        @Override
        public void onStart(Start s) {
            start = timeline.devices();
            hostStart = timeline.hostProgramSec();
        }

        @Override
        public void onBatch(BatchDone batch) {
            steps = batch.batchesPerEpoch();
            if (batch.batch() == batch.batchesPerEpoch()) {
                end = timeline.devices();
                hostEnd = timeline.hostProgramSec();
            }
        }

        double hostProgramSec() {
            return hostEnd - hostStart;
        }

        List<GpuShare> gpus() {
            return IntStream.range(0, start.size())
                    .mapToObj(d -> new GpuShare(
                            start.get(d).device().toString(),
                            end.get(d).computeSec() - start.get(d).computeSec(),
                            end.get(d).commSec() - start.get(d).commSec(),
                            end.get(d).idleSec() - start.get(d).idleSec()))
                    .toList();
        }
    }
}
