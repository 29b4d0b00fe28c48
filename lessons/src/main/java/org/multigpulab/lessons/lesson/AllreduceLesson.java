package org.multigpulab.lessons.lesson;

import java.util.ArrayList;
import java.util.List;
import org.multigpulab.core.parallel.Collectives;
import org.multigpulab.device.Buffer;
import org.multigpulab.device.Device;

/** The notebook's allreduce demo: {@code ones(1, 2) * (i + 1)} on each device, summed onto all of them. */
public final class AllreduceLesson implements Lesson {

    @Override
    public String name() {
        return "allreduce";
    }

    @Override
    public String summary() {
        return "allreduce: add every device's data on device 0, then copy the sum back to all";
    }

    /** The values on each device after the allreduce of {@code ones(1, 2) * (i + 1)}. */
    public List<float[]> demo(LessonContext ctx, boolean print) {
        List<Device> devices = ctx.open(ctx.gpus(2));
        try {
            List<Buffer> data = new ArrayList<>();
            for (int i = 0; i < devices.size(); i++) {
                data.add(devices.get(i).upload(new float[] {i + 1, i + 1}));
            }
            if (print) {
                ctx.out().println("before allreduce:\n " + show(data));
            }
            Collectives.allReduce(data);
            if (print) {
                ctx.out().println("after allreduce:\n " + show(data));
            }
            return data.stream().map(b -> b.device().download(b)).toList();
        } finally {
            devices.forEach(Device::close);
        }
    }

    private static String show(List<Buffer> data) {
        List<String> lines = new ArrayList<>();
        for (Buffer b : data) {
            lines.add(TorchText.floats(
                    b.device().download(b), new int[] {1, 2}, b.device().id().toString(), false));
        }
        return String.join(" \n ", lines);
    }

    @Override
    public void run(LessonContext ctx) {
        int k = demo(ctx, true).size();
        ctx.out()
                .println("Notice: all " + k + " devices now hold the same sum, " + k * (k + 1) / 2
                        + ". Device 0 received and sent " + (k - 1) + " buffer(s); every other device received one:"
                        + " the load falls on device 0.");
    }
}
