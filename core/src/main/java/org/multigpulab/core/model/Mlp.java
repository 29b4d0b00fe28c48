package org.multigpulab.core.model;

import java.util.List;
import org.multigpulab.core.autograd.Ops;
import org.multigpulab.core.autograd.Tape;
import org.multigpulab.core.autograd.Tensor;
import org.multigpulab.core.data.ImageShape;

/**
 * d2l's multilayer perceptron from scratch (§5.2): flatten 784 → dense 784×256 → ReLU → dense 256×10.
 * 203,530 parameters, initialised as d2l does: weights {@code randn · 0.01}, biases zero. Made wide (8,192 hidden
 * units, 6,512,650 parameters: {@link #wide()}), its parameters and optimizer state outweigh its activations at
 * small batches, the case ZeRO is for. Stateless.
 */
public final class Mlp implements Model {

    static final ImageShape INPUT = LeNet.INPUT;
    static final int INPUTS = INPUT.length(), HIDDENS = 256, WIDE_HIDDENS = 8192;

    private final int hiddens;
    private final List<ParameterSpec> specs;

    /** d2l's, 256 hidden units. */
    public Mlp() {
        this(HIDDENS);
    }

    private Mlp(int hiddens) {
        this.hiddens = hiddens;
        // d2l's params = [W1, b1, W2, b2]
        this.specs = List.of(
                ParameterSpec.normal("W1", 0.01f, INPUTS, hiddens), ParameterSpec.zeros("b1", hiddens),
                ParameterSpec.normal("W2", 0.01f, hiddens, CLASSES), ParameterSpec.zeros("b2", CLASSES));
    }

    /** d2l's MLP with 8,192 hidden units: {@code --model mlp-wide}. */
    public static Mlp wide() {
        return new Mlp(WIDE_HIDDENS);
    }

    @Override
    public String name() {
        return hiddens == HIDDENS ? "MLP" : "MLP-wide";
    }

    @Override
    public ImageShape input() {
        return INPUT;
    }

    @Override
    public List<ParameterSpec> parameters() {
        return specs;
    }

    /** d2l's {@code net(X)}: X [N, 1, 28, 28] → logits [N, 10]. */
    @Override
    public Tensor forward(Tape tape, Tensor x, List<Tensor> params, List<Tensor> buffers, Mode mode) {
        Tensor flat = x.reshape(x.dim(0), INPUTS); // [N, 784]
        Tensor h = Ops.relu(tape, Ops.linear(tape, flat, params.get(0), params.get(1))); // [N, hiddens]
        return Ops.linear(tape, h, params.get(2), params.get(3)); // [N, 10]
    }
}
