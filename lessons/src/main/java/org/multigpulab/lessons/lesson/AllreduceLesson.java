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

    /** The values on each device after the allreduce, and the bytes each device received from its peers. */
    public record Outcome(List<float[]> after, List<Long> bytesReceived) {}

    /** The allreduce of {@code ones(1, 2) * (i + 1)} on every device. */
    public Outcome demo(LessonContext ctx, boolean print) {
        List<Device> devices = ctx.open(ctx.gpus(2));
        try {
            List<Buffer> data = new ArrayList<>();
            for (int i = 0; i < devices.size(); i++) {
                data.add(devices.get(i).upload(new float[] {i + 1, i + 1}));
            }
            if (print) {
                ctx.out().println("before allreduce:\n " + show(data));
            }
            List<Long> before =
                    devices.stream().map(d -> d.stats().bytesFromPeers()).toList();
            Collectives.allReduce(data);
            if (print) {
                ctx.out().println("after allreduce:\n " + show(data));
            }
            List<Long> received = new ArrayList<>();
            for (int i = 0; i < devices.size(); i++) {
                received.add(devices.get(i).stats().bytesFromPeers() - before.get(i));
            }
            return new Outcome(data.stream().map(b -> b.device().download(b)).toList(), received);
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

    /** Every device holds 1 + 2 + … + k: the largest distance of any value from that sum is 0. */
    static Claim sameSum(Outcome o) {
        int k = o.after().size();
        double sum = k * (k + 1) / 2.0, worst = 0;
        for (float[] values : o.after()) {
            for (float v : values) {
                worst = Math.max(worst, Math.abs(v - sum));
            }
        }
        return Claim.below("every device holds the sum " + (int) sum + ": largest distance from it", worst, 1e-6);
    }

    /** Device 0 receives more than any other: k − 1 buffers against one (with 2 devices, one each). */
    static Claim loadOnDeviceZero(Outcome o) {
        long zero = o.bytesReceived().getFirst();
        long other = o.bytesReceived().stream()
                .skip(1)
                .mapToLong(Long::longValue)
                .max()
                .orElse(0);
        return Claim.ratioAbove("bytes device 0 received over the most another device received", zero, other, 1)
                .and(
                        ": device 0 adds every buffer and sends the sum back, so the load falls on it.",
                        ": with " + o.after().size() + " devices each receives one buffer; from 3 on, device 0"
                                + " receives k - 1 and the load falls on it.");
    }

    @Override
    public void run(LessonContext ctx) {
        Outcome o = demo(ctx, true);
        ctx.out().println("bytes received from peers per device: " + o.bytesReceived());
        ctx.out().println(sameSum(o).notice());
        if (o.after().size() > 1) { // one device receives nothing
            ctx.out().println(loadOnDeviceZero(o).notice());
        }
    }
}
