package org.multigpulab.lessons.lesson;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.multigpulab.core.autograd.Tape;
import org.multigpulab.core.autograd.Tensor;
import org.multigpulab.core.data.ImageShape;
import org.multigpulab.core.model.HostTensor;
import org.multigpulab.core.model.LeNet;
import org.multigpulab.core.parallel.Replica;
import org.multigpulab.device.ConvShape;
import org.multigpulab.device.Device;
import org.multigpulab.device.KernelOp;

/** The notebook's "Model" cell: the LeNet variant, the shape after every step, and its parameter count. */
public final class ModelLesson implements Lesson {

    private static final LeNet LENET = new LeNet();

    /** A layer's name and output shape for one image. */
    public record Layer(String name, int[] shape) {}

    /** What the lesson shows: each layer's output shape and the number of parameters. */
    public record Model(List<Layer> layers, int parameters) {}

    @Override
    public String name() {
        return "model";
    }

    @Override
    public String summary() {
        return "the LeNet variant: its layers, the shape after each, and its 129,068 parameters";
    }

    /** Runs one image through the model on the first device and records every layer's output shape. */
    public Model inspect(LessonContext ctx) {
        List<Device> devices = ctx.open(1);
        List<Layer> layers = new ArrayList<>();
        try (Replica replica = Replica.getParams(LENET.initialState(0), devices.getFirst());
                Tape tape = Tape.inference(replica.workspace())) {
            ImageShape image = LeNet.INPUT;
            Tensor x = tape.newTensor(false, 1, image.channels(), image.height(), image.width());
            layers.add(new Layer("X", x.shape()));
            LENET.forward(tape, x, replica.params(), (name, t) -> layers.add(new Layer(name, t.shape())));
        } finally {
            devices.forEach(Device::close);
        }
        return new Model(layers, LENET.parameterCount());
    }

    @Override
    public void run(LessonContext ctx) {
        var out = ctx.out();
        Model model = inspect(ctx);
        out.println("lenet(X, params) for one 28x28 image:");
        for (Layer layer : model.layers()) {
            out.printf("  %-14s %s%n", layer.name(), Arrays.toString(layer.shape()));
        }
        out.println("parameters (weights ~ N(0, 1) * 0.01, biases 0):");
        for (HostTensor p : LENET.initialState(0)) {
            out.printf("  %-3s %-16s %,8d%n", p.name(), p.shapeText(), p.size());
        }
        out.printf("  total %,d%n", model.parameters());
        List<HostTensor> params = LENET.initialState(0);
        double convParams =
                params.subList(0, 4).stream().mapToInt(HostTensor::size).sum();
        long convFlops = new ConvShape(1, 1, 28, 28, 20, 3, 3).flops() + new ConvShape(1, 20, 13, 13, 50, 5, 5).flops();
        long denseFlops = KernelOp.Gemm.flops(1, 128, 800) + KernelOp.Gemm.flops(1, 10, 128);
        double paramShare = convParams / model.parameters();
        double flopShare = (double) convFlops / (convFlops + denseFlops);
        out.printf(
                "the two convolutions: %.0f%% of the parameters, %.0f%% of the multiply-adds%n",
                100 * paramShare, 100 * flopShare);
        out.println(Claim.ratioAbove(
                        "convolutions' share of the work over their share of the parameters", flopShare, paramShare, 1)
                .and(": the convolutions are where the time goes.", ": the dense layers do their share of the work.")
                .text());
        out.println(Claim.above(
                        "W3's share of the gradient the allreduce moves every step",
                        params.get(4).size() / (double) model.parameters(),
                        0.5)
                .and(
                        ": one dense layer is most of what the GPUs exchange.",
                        ": no single tensor dominates the exchange.")
                .notice());
    }
}
