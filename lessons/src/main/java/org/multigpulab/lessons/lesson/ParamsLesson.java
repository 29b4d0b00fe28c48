package org.multigpulab.lessons.lesson;

import java.util.ArrayList;
import java.util.List;
import org.multigpulab.core.autograd.Tensor;
import org.multigpulab.core.model.LeNet;
import org.multigpulab.core.parallel.Replica;
import org.multigpulab.device.Device;

/** The notebook's "Copying parameters across devices": {@code get_params} onto each device, then b1. */
public final class ParamsLesson implements Lesson {

    @Override
    public String name() {
        return "params";
    }

    @Override
    public String summary() {
        return "get_params: a copy of the parameters on each device, gradients enabled but not yet computed";
    }

    @Override
    public void run(LessonContext ctx) {
        List<Device> devices = ctx.open(ctx.gpus(2));
        List<Replica> replicas = new ArrayList<>();
        try {
            for (Device device : devices) {
                Replica replica = Replica.getParams(new LeNet().initialState(0), device);
                replicas.add(replica);
                Tensor b1 = replica.param("b1");
                ctx.out().println("# Copy the params to " + device.id());
                ctx.out()
                        .println("b1 weight: "
                                + TorchText.floats(
                                        device.download(b1.data()),
                                        b1.shape(),
                                        device.id().toString(),
                                        true));
                ctx.out().println("b1 grad: " + (b1.grad() == null ? "None" : "allocated"));
            }
            ctx.out()
                    .println("Notice: each device holds its own copy; the gradient is None until the first"
                            + " backward pass on that device writes it.");
        } finally {
            replicas.forEach(Replica::close);
            devices.forEach(Device::close);
        }
    }
}
