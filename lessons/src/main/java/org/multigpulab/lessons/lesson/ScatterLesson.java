package org.multigpulab.lessons.lesson;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.multigpulab.core.autograd.Workspace;
import org.multigpulab.core.data.HostBatch;
import org.multigpulab.core.model.HostTensor;
import org.multigpulab.core.model.LeNet;
import org.multigpulab.core.model.UpdateDistance;
import org.multigpulab.core.parallel.Scatter;
import org.multigpulab.core.parallel.Shard;
import org.multigpulab.core.train.DataParallelTrainer;
import org.multigpulab.core.train.TrainConfig;
import org.multigpulab.device.Buffer;
import org.multigpulab.device.Device;

/**
 * The notebook's "Distribute data across GPUs": scatter of {@code arange(20).reshape(4, 5)}, then split_batch,
 * then how torch.chunk splits batches that do not divide, down to a device that gets no rows.
 */
public final class ScatterLesson implements Lesson {

    /** 6 rows over 4 devices: torch.chunk makes three chunks of 2, and the fourth device gets none. */
    private static final int IDLE_BATCH = 6;

    private static final int IDLE_DEVICES = 4;
    private static final long IDLE_SEED = 0;

    /**
     * Updates within float rounding of each other: the gradients are the same sums in another order, so the bound
     * is DataParallelTrainerTest's for k devices against one, 1e-4 (this step measured 2.8e-6, in a bias).
     */
    static final double SAME_UPDATE = 1e-4;

    @Override
    public String name() {
        return "scatter";
    }

    @Override
    public String summary() {
        return "scatter and split_batch: each device gets a slice of the rows of a batch";
    }

    /** The rows each device got from scattering {@code arange(20).reshape(4, 5)}. */
    public List<float[]> demo(LessonContext ctx, boolean print) {
        float[] arange = new float[20];
        for (int i = 0; i < arange.length; i++) {
            arange[i] = i;
        }
        List<Device> devices = ctx.open(ctx.gpus(2));
        try {
            List<Buffer> split = Scatter.scatter(arange, 4, 5, devices);
            if (print) {
                var out = ctx.out();
                out.println("input : " + TorchText.ints(arange, new int[] {4, 5}, null));
                out.println("load into "
                        + devices.stream().map(d -> d.id().toString()).toList());
                List<String> parts = new ArrayList<>();
                for (Buffer b : split) {
                    parts.add(TorchText.ints(
                            b.device().download(b),
                            new int[] {b.length() / 5, 5},
                            b.device().id().toString()));
                }
                out.println("output: (" + String.join(", ", parts) + ")");
                splitBatchDemo(ctx, devices);
            }
            return split.stream().map(b -> b.device().download(b)).toList();
        } finally {
            devices.forEach(Device::close);
        }
    }

    private static void splitBatchDemo(LessonContext ctx, List<Device> devices) {
        int batch = 5;
        HostBatch b = new HostBatch(
                new float[batch * LeNet.INPUT.length()], new float[] {0, 1, 2, 3, 4}, batch, LeNet.INPUT, 1);
        List<Workspace> workspaces = devices.stream().map(Workspace::new).toList();
        List<String> parts = new ArrayList<>();
        for (Shard s : Scatter.splitBatch(b, workspaces)) {
            parts.add("X " + Arrays.toString(new int[] {s.size(), 1, 28, 28}) + " y "
                    + TorchText.ints(s.y().device().download(s.y()), new int[] {s.size()}, null) + " on "
                    + s.x().device().id());
        }
        ctx.out()
                .println("split_batch of " + batch + " images over " + devices.size() + " devices: "
                        + String.join("; ", parts));
        workspaces.forEach(Workspace::close);
    }

    /** How {@code rows} split over {@code devices}: torch.chunk's sizes, and the balanced ones beside them. */
    static String splitLine(int rows, int devices) {
        return String.format(
                "a batch of %d over %d devices: %s as torch.chunk splits it (balanced, as some samplers split: %s)",
                rows,
                devices,
                Arrays.toString(Scatter.shardSizes(rows, devices)),
                Arrays.toString(Scatter.balancedSizes(rows, devices)));
    }

    /**
     * One SGD step of LeNet on {@code IDLE_BATCH} random images over 4 devices, of which the last gets no rows,
     * against the same step on one device: the relative distance of the two updates (the worst tensor's).
     */
    static double idleDeviceStep(LessonContext ctx) {
        Random random = new Random(IDLE_SEED);
        float[] x = new float[IDLE_BATCH * LeNet.INPUT.length()];
        float[] y = new float[IDLE_BATCH];
        for (int i = 0; i < x.length; i++) {
            x[i] = random.nextFloat();
        }
        for (int i = 0; i < y.length; i++) {
            y[i] = i % 10;
        }
        HostBatch batch = new HostBatch(x, y, IDLE_BATCH, LeNet.INPUT, 1);
        LeNet net = new LeNet();
        List<HostTensor> init = net.initialState(IDLE_SEED);
        TrainConfig config = LessonContext.recipe(1, IDLE_BATCH, 0.5f);
        List<List<HostTensor>> after = new ArrayList<>();
        for (int gpus : new int[] {1, IDLE_DEVICES}) {
            List<Device> devices = ctx.open(gpus);
            try (DataParallelTrainer trainer = new DataParallelTrainer(devices, net, init, config)) {
                trainer.trainBatch(batch, config.lr(), 1);
                after.add(trainer.parameters());
            } finally {
                devices.forEach(Device::close);
            }
        }
        return UpdateDistance.of(init, after.get(1), after.get(0)).worst().relative();
    }

    /** The claim: the step with an idle device is one device's, up to float rounding (sums in another order). */
    static Claim idleDeviceClaim(double distance) {
        return Claim.below(
                        "a device without rows computes nothing and adds zero gradients; one step on " + IDLE_DEVICES
                                + " devices (one idle) vs 1, update distance",
                        distance,
                        SAME_UPDATE)
                .and(
                        ": the same update. The notebook's own train_batch would fail here: zip stops after the"
                                + " shards there are, and allreduce reads the idle replica's .grad, still None.",
                        ": the idle device changed the update.");
    }

    @Override
    public void run(LessonContext ctx) {
        demo(ctx, true);
        ctx.out().println(splitLine(256, 3));
        ctx.out().println(splitLine(10, 4));
        ctx.out().println(splitLine(IDLE_BATCH, IDLE_DEVICES));
        ctx.out().println(idleDeviceClaim(idleDeviceStep(ctx)).notice());
    }
}
