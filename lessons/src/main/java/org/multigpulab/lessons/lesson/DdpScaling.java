package org.multigpulab.lessons.lesson;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.multigpulab.core.model.LeNet;
import org.multigpulab.core.model.Model;
import org.multigpulab.core.model.TorchvisionResNet;
import org.multigpulab.core.parallel.AllReduceAlgorithm;
import org.multigpulab.core.train.TrainResult;
import org.multigpulab.lessons.errors.UserError;
import org.multigpulab.lessons.simulate.ScalingSweep;
import org.multigpulab.lessons.simulate.TimeOnlyEpoch;

/**
 * The scaling lesson's second part: torchvision's ResNet-50 and the notebook's LeNet trained as PyTorch's DDP trains
 * them (a process per GPU, gradients summed by NCCL's allreduce in buckets of 25 MiB, the first of 1 MiB, while
 * the backward pass runs, timed by the collectives' model of NCCL), 32 images per GPU, on 1, 2, 4, … GPUs of a node and then on whole nodes of 8, in simulated
 * time only: seconds per step and the scaling efficiency, and whether ResNet-50 scales where LeNet does not. The
 * same system and scheme for both models, so only the work per GPU differs.
 */
final class DdpScaling {

    /** GPUs in a node: a DGX's 8. */
    static final int GPUS_PER_NODE = 8;

    /** The largest system without {@code --gpus}: two nodes, so that the sweep crosses the network once. */
    static final int DEFAULT_GPUS = 2 * GPUS_PER_NODE;

    /** Images per GPU: torchvision's reference ImageNet recipe trains ResNet-50 with 32 per GPU (its --batch-size). */
    static final int BATCH_PER_GPU = 32;

    /** DDP's default bucket_cap_mb, in bytes (torch.nn.parallel.DistributedDataParallel's documentation). */
    static final long BUCKET_BYTES = 25L << 20;

    /**
     * The systems: DGX-1's V100s (NVLink 2, InfiniBand EDR between nodes), on which DDP's scaling was published, and
     * DGX H100's (NVLink 4, NDR).
     */
    static final List<String> PROFILES = List.of("v100", "h100");

    /**
     * One step is timed, on one GPU as on N: a time-only run's steps take the same time (from one forward pass to the
     * next, in the trace of ./lab simulate --model resnet50 --batch-per-gpu 32 --profile v100 --gpus 2 --allreduce
     * nccl --bucket-cap-mb 25 --process-per-gpu --iterations 3 --trace FILE).
     */
    private static final int STEPS = 1;

    /** The least share of throughput lost that the table shows: efficiencies are printed to 0.1 %. */
    private static final double SHOWN_LOSS = 0.001;

    /** One model's sweep on one profile's GPUs. */
    record Sweep(String model, String profile, List<ScalingSweep.Point> points) {

        /** The largest system of one node: where communication crosses only NVLink. */
        ScalingSweep.Point largestNode() {
            return points.stream().filter(p -> p.nodes() == 1).toList().getLast();
        }
    }

    private DdpScaling() {}

    /** ResNet-50's and LeNet's sweeps up to {@code --gpus} (default {@link #DEFAULT_GPUS}) on each profile. */
    static List<Sweep> sweeps(LessonContext ctx) {
        int gpus = ctx.gpus(DEFAULT_GPUS);
        if (gpus < 2 || gpus > GPUS_PER_NODE && gpus % GPUS_PER_NODE != 0) {
            throw new UserError("the scaling lesson's DDP part needs --gpus 2 to " + GPUS_PER_NODE
                    + ", or whole nodes of " + GPUS_PER_NODE + " (16, 24, …), not " + gpus);
        }
        List<Sweep> sweeps = new ArrayList<>();
        for (String profile : PROFILES) {
            for (Model model : List.of(TorchvisionResNet.resnet50(), new LeNet())) {
                sweeps.add(new Sweep(model.name(), profile, ScalingSweep.run(largest(profile, model, gpus))));
            }
        }
        return sweeps;
    }

    private static TimeOnlyEpoch.Setup largest(String profile, Model model, int gpus) {
        int batch = BATCH_PER_GPU * gpus;
        return new TimeOnlyEpoch.Setup(
                        gpus,
                        Math.ceilDiv(gpus, GPUS_PER_NODE),
                        profile,
                        null,
                        null,
                        model,
                        batch,
                        STEPS * batch,
                        AllReduceAlgorithm.NCCL,
                        BUCKET_BYTES,
                        false)
                .withProcessPerGpu();
    }

    /** Runs the sweeps, prints them and what they show. */
    static void run(LessonContext ctx) {
        report(ctx, sweeps(ctx));
    }

    /** The sweeps' tables and the claims drawn from them. */
    static void report(LessonContext ctx, List<Sweep> sweeps) {
        ctx.out()
                .printf(
                        Locale.ROOT,
                        "%nAs DDP trains (a process per GPU; gradients in buckets of %d MiB, the first of 1 MiB, summed"
                                + " by NCCL's allreduce while the backward pass runs), %d images per GPU, time only;"
                                + " efficiency: throughput at N GPUs / (N × throughput at 1):%n",
                        BUCKET_BYTES >> 20,
                        BATCH_PER_GPU);
        int width = sweeps.stream()
                .flatMap(s -> s.points().stream())
                .mapToInt(p -> p.description().length())
                .max()
                .orElse(0);
        for (Sweep s : sweeps) {
            ctx.out().printf(Locale.ROOT, "  %s on %s:%n", s.model(), s.profile());
            for (ScalingSweep.Point p : s.points()) {
                ctx.out()
                        .printf(
                                Locale.ROOT,
                                "    %-" + width + "s  %s sec/iteration, efficiency %5.1f%%%n",
                                p.description(),
                                TrainResult.seconds(p.secPerIteration()),
                                100 * p.efficiency());
            }
        }
        if (sweeps.getFirst().points().getLast().nodes() > 1) {
            ctx.out()
                    .println("  Across nodes each bucket's sum goes through the host, which waits for the network (as"
                            + " train --dist mpi sums across processes); DDP's NCCL sums on the GPUs while the host"
                            + " goes on, so its nodes scale better than these.");
        }
        for (int i = 0; i < sweeps.size(); i += 2) {
            for (Claim c : claims(sweeps.get(i), sweeps.get(i + 1))) {
                ctx.out().println(c.notice());
            }
        }
    }

    /**
     * On the largest node: ResNet-50 loses less than 10 % of one GPU's throughput per GPU, and LeNet, whose steps are
     * too short to hide anything behind, loses more than 5 times its share (each share no less than the table's
     * 0.1 %, what it can show).
     */
    static List<Claim> claims(Sweep resnet, Sweep lenet) {
        ScalingSweep.Point r = resnet.largestNode(), l = lenet.largestNode();
        String where = " at " + r.description();
        Claim hides = Claim.below(
                        "the share of one GPU's throughput per GPU that " + resnet.model() + " loses" + where + ",",
                        1 - r.efficiency(),
                        0.1)
                .and(
                        ": its communication hides behind its backward pass.",
                        ": its communication does not all hide behind its backward pass.");
        Claim unlike = Claim.ratioAbove(
                        "the share " + lenet.model() + " loses" + where + ", over " + resnet.model() + "'s",
                        Math.max(1 - l.efficiency(), SHOWN_LOSS),
                        Math.max(1 - r.efficiency(), SHOWN_LOSS),
                        5)
                .and(
                        ": LeNet's step is too short to hide its allreduce; a GPU's work must outweigh its"
                                + " communication to scale.",
                        ": at this size LeNet scales about as well.");
        return List.of(hides, unlike);
    }
}
