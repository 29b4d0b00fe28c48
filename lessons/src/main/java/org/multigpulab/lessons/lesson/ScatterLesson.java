package org.multigpulab.lessons.lesson;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.multigpulab.core.autograd.Workspace;
import org.multigpulab.core.data.HostBatch;
import org.multigpulab.core.parallel.Scatter;
import org.multigpulab.core.parallel.Shard;
import org.multigpulab.device.Buffer;
import org.multigpulab.device.Device;

/** The notebook's "Distribute data across GPUs": scatter of {@code arange(20).reshape(4, 5)}, then split_batch. */
public final class ScatterLesson implements Lesson {

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
        HostBatch b = new HostBatch(new float[batch * 784], new float[] {0, 1, 2, 3, 4}, batch, 784, 1);
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
        ctx.out().println("a batch of 256 over 3 devices: " + Arrays.toString(Scatter.shardSizes(256, 3)));
        workspaces.forEach(Workspace::close);
    }

    @Override
    public void run(LessonContext ctx) {
        demo(ctx, true);
        ctx.out()
                .println("Notice: the split is along the first dimension, as even as it can be; the first"
                        + " devices take one row more when it does not divide.");
    }
}
