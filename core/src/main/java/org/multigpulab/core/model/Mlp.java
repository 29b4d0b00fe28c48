package org.multigpulab.core.model;

import java.util.List;
import org.multigpulab.core.autograd.Ops;
import org.multigpulab.core.autograd.Tape;
import org.multigpulab.core.autograd.Tensor;
import org.multigpulab.core.data.ImageShape;

/**
 * d2l's multilayer perceptron from scratch (§5.2): flatten 784 → dense 784×256 → ReLU → dense 256×10.
 * 203,530 parameters, initialised as d2l does: weights {@code randn · 0.01}, biases zero. Stateless.
 */
public final class Mlp implements Model {

    static final ImageShape INPUT = LeNet.INPUT;
    static final int INPUTS = INPUT.length(), HIDDENS = 256;

    /** d2l's {@code params = [W1, b1, W2, b2]}. */
    public static final List<ParameterSpec> SPECS = List.of(
            ParameterSpec.normal("W1", 0.01f, INPUTS, HIDDENS), ParameterSpec.zeros("b1", HIDDENS),
            ParameterSpec.normal("W2", 0.01f, HIDDENS, CLASSES), ParameterSpec.zeros("b2", CLASSES));

    @Override
    public String name() {
        return "MLP";
    }

    @Override
    public ImageShape input() {
        return INPUT;
    }

    @Override
    public List<ParameterSpec> parameters() {
        return SPECS;
    }

    /** d2l's {@code net(X)}: X [N, 1, 28, 28] → logits [N, 10]. */
    @Override
    public Tensor forward(Tape tape, Tensor x, List<Tensor> params, List<Tensor> buffers, Mode mode) {
        Tensor flat = x.reshape(x.dim(0), INPUTS); // [N, 784]
        Tensor h = Ops.relu(tape, Ops.linear(tape, flat, params.get(0), params.get(1))); // [N, 256]
        return Ops.linear(tape, h, params.get(2), params.get(3)); // [N, 10]
    }
}
