package org.multigpulab.core.model;

import java.util.List;
import org.multigpulab.core.autograd.Ops;
import org.multigpulab.core.autograd.Tape;
import org.multigpulab.core.autograd.Tensor;
import org.multigpulab.core.data.ImageShape;

/**
 * The notebook's LeNet variant for 1×28×28 Fashion-MNIST images:
 * conv 20×1×3×3 → ReLU → avg-pool 2/2 → conv 50×20×5×5 → ReLU → avg-pool 2/2 → flatten 800 → dense 800×128 →
 * ReLU → dense 128×10. 129,068 parameters. Stateless.
 */
public final class LeNet implements Model {

    /**
     * The parameters in the notebook's order {@code [W1, b1, W2, b2, W3, b3, W4, b4]}, initialised as the notebook
     * does: weights {@code randn · 0.01}, biases zero.
     */
    public static final List<ParameterSpec> SPECS = List.of(
            ParameterSpec.normal("W1", 0.01f, 20, 1, 3, 3), ParameterSpec.zeros("b1", 20),
            ParameterSpec.normal("W2", 0.01f, 50, 20, 5, 5), ParameterSpec.zeros("b2", 50),
            ParameterSpec.normal("W3", 0.01f, 800, 128), ParameterSpec.zeros("b3", 128),
            ParameterSpec.normal("W4", 0.01f, 128, 10), ParameterSpec.zeros("b4", 10));

    /** The images it takes: its dense layer's 800 inputs are 50 channels of 4×4 from 28×28. */
    public static final ImageShape INPUT = new ImageShape(1, 28, 28);

    @Override
    public String name() {
        return "LeNet";
    }

    @Override
    public ImageShape input() {
        return INPUT;
    }

    @Override
    public List<ParameterSpec> parameters() {
        return SPECS;
    }

    /** Told each layer's output as the forward pass makes it, by the notebook's variable name. */
    @FunctionalInterface
    public interface LayerObserver {
        void output(String name, Tensor tensor);
    }

    /** LeNet has no buffers and no layer that trains otherwise than it evaluates: {@link #forward(Tape, Tensor, List)}. */
    @Override
    public Tensor forward(Tape tape, Tensor x, List<Tensor> params, List<Tensor> buffers, Mode mode) {
        return forward(tape, x, params);
    }

    /** The notebook's {@code lenet(X, params)}: X [N, 1, 28, 28] → logits [N, 10]. */
    public Tensor forward(Tape tape, Tensor x, List<Tensor> params) {
        return forward(tape, x, params, (name, t) -> {});
    }

    /** {@link #forward(Tape, Tensor, List)}, telling {@code observer} every intermediate result. */
    public Tensor forward(Tape tape, Tensor x, List<Tensor> params, LayerObserver observer) {
        Tensor h1Conv = Ops.conv2d(tape, x, params.get(0), params.get(1)); // [N, 20, 26, 26]
        observer.output("h1_conv", h1Conv);
        Tensor h1Activation = Ops.relu(tape, h1Conv);
        observer.output("h1_activation", h1Activation);
        Tensor h1 = Ops.avgPool2d(tape, h1Activation, 2, 2); // [N, 20, 13, 13]
        observer.output("h1", h1);
        Tensor h2Conv = Ops.conv2d(tape, h1, params.get(2), params.get(3)); // [N, 50, 9, 9]
        observer.output("h2_conv", h2Conv);
        Tensor h2Activation = Ops.relu(tape, h2Conv);
        observer.output("h2_activation", h2Activation);
        Tensor h2 = Ops.avgPool2d(tape, h2Activation, 2, 2); // [N, 50, 4, 4]
        h2 = h2.reshape(h2.dim(0), h2.size() / h2.dim(0)); // [N, 800]
        observer.output("h2", h2);
        Tensor h3Linear = Ops.linear(tape, h2, params.get(4), params.get(5)); // [N, 128]
        observer.output("h3_linear", h3Linear);
        Tensor h3 = Ops.relu(tape, h3Linear);
        observer.output("h3", h3);
        Tensor yHat = Ops.linear(tape, h3, params.get(6), params.get(7)); // [N, 10]
        observer.output("y_hat", yHat);
        return yHat;
    }
}
