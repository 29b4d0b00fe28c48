package org.multigpulab.core.model;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.multigpulab.core.autograd.Ops;
import org.multigpulab.core.autograd.Tape;
import org.multigpulab.core.autograd.Tensor;
import org.multigpulab.core.data.ImageShape;

/**
 * d2l's multilayer perceptron from scratch (§5.2): flatten 784 → dense 784×256 → ReLU → dense 256×10.
 * 203,530 parameters, initialised as d2l does: weights {@code randn · 0.01}, biases zero. With more and wider
 * hidden layers ({@link #Mlp(int...)}; {@link #wide()}: eight of 2,048, 31,002,634 parameters) its parameters and
 * optimizer state outweigh its activations at small batches, the case ZeRO is for. Stateless.
 */
public final class Mlp implements Model {

    static final ImageShape INPUT = LeNet.INPUT;
    static final int INPUTS = INPUT.length(), HIDDENS = 256;
    private static final int[] WIDE = {2048, 2048, 2048, 2048, 2048, 2048, 2048, 2048};

    private final int[] hiddens;
    private final List<ParameterSpec> specs;

    /** d2l's, one hidden layer of 256 units. */
    public Mlp() {
        this(HIDDENS);
    }

    /** Hidden layers of {@code hiddens} units each, every one followed by a ReLU: W1, b1, W2, b2, … */
    public Mlp(int... hiddens) {
        if (hiddens.length == 0 || Arrays.stream(hiddens).anyMatch(h -> h <= 0)) {
            throw new IllegalArgumentException(
                    "an MLP needs hidden layers of 1 unit or more, not " + Arrays.toString(hiddens));
        }
        this.hiddens = hiddens.clone();
        List<ParameterSpec> specs = new ArrayList<>();
        int in = INPUTS;
        for (int i = 0; i <= hiddens.length; i++) {
            int out = i < hiddens.length ? hiddens[i] : CLASSES;
            specs.add(ParameterSpec.normal("W" + (i + 1), 0.01f, in, out));
            specs.add(ParameterSpec.zeros("b" + (i + 1), out));
            in = out;
        }
        this.specs = List.copyOf(specs);
    }

    /** Eight hidden layers of 2,048 units: {@code --model mlp-wide}. */
    public static Mlp wide() {
        return new Mlp(WIDE);
    }

    @Override
    public String name() {
        if (Arrays.equals(hiddens, new int[] {HIDDENS})) {
            return "MLP";
        }
        return Arrays.equals(hiddens, WIDE) ? "MLP-wide" : "MLP" + Arrays.toString(hiddens);
    }

    @Override
    public ImageShape input() {
        return INPUT;
    }

    @Override
    public List<ParameterSpec> parameters() {
        return specs;
    }

    /** d2l's {@code net(X)}: X [N, 1, 28, 28] → logits [N, 10], a ReLU after every hidden layer. */
    @Override
    public Tensor forward(Tape tape, Tensor x, List<Tensor> params, List<Tensor> buffers, Mode mode) {
        Tensor h = x.reshape(x.dim(0), INPUTS); // [N, 784]
        for (int i = 0; i < hiddens.length; i++) {
            h = Ops.relu(tape, Ops.linear(tape, h, params.get(2 * i), params.get(2 * i + 1))); // [N, hiddens[i]]
        }
        return Ops.linear(tape, h, params.get(2 * hiddens.length), params.get(2 * hiddens.length + 1)); // [N, 10]
    }
}
