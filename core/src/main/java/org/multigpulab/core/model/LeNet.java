package org.multigpulab.core.model;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.multigpulab.core.autograd.Ops;
import org.multigpulab.core.autograd.Tape;
import org.multigpulab.core.autograd.Tensor;

/**
 * The seed's LeNet variant for 28×28 Fashion-MNIST images:
 * conv 20×1×3×3 → ReLU → avg-pool 2/2 → conv 50×20×5×5 → ReLU → avg-pool 2/2 → flatten 800 → dense 800×128 →
 * ReLU → dense 128×10. 129,068 parameters.
 */
public final class LeNet {

    public static final int IMAGE_SIZE = 28;
    public static final int CLASSES = 10;

    /** Names and shapes of the parameters, in the seed's order {@code [W1, b1, W2, b2, W3, b3, W4, b4]}. */
    public static final List<Spec> SPECS = List.of(
            new Spec("W1", 20, 1, 3, 3), new Spec("b1", 20),
            new Spec("W2", 50, 20, 5, 5), new Spec("b2", 50),
            new Spec("W3", 800, 128), new Spec("b3", 128),
            new Spec("W4", 128, 10), new Spec("b4", 10));

    /** A parameter's name and shape. */
    public record Spec(String name, int... shape) {

        public int size() {
            int n = 1;
            for (int d : shape) {
                n *= d;
            }
            return n;
        }

        boolean isWeight() {
            return name.startsWith("W");
        }
    }

    private LeNet() {
    }

    /** The number of parameters: 129,068. */
    public static int parameterCount() {
        return SPECS.stream().mapToInt(Spec::size).sum();
    }

    /**
     * The seed's initialisation: weights {@code randn · 0.01} from a generator seeded with {@code seed}, in the
     * seed's order, biases zero. (Java's generator, so the numbers differ from PyTorch's, the distribution not.)
     */
    public static List<HostTensor> initParams(long seed) {
        float scale = 0.01f;
        Random random = new Random(seed);
        List<HostTensor> params = new ArrayList<>();
        for (Spec spec : SPECS) {
            float[] values = new float[spec.size()];
            if (spec.isWeight()) {
                for (int i = 0; i < values.length; i++) {
                    values[i] = (float) random.nextGaussian() * scale;
                }
            }
            params.add(new HostTensor(spec.name(), spec.shape(), values));
        }
        return List.copyOf(params);
    }

    /** Told each layer's output as the forward pass makes it, by the seed's variable name. */
    @FunctionalInterface
    public interface LayerObserver {
        void output(String name, Tensor tensor);
    }

    /** The seed's {@code lenet(X, params)}: X [N, 1, 28, 28] → logits [N, 10]. */
    public static Tensor forward(Tape tape, Tensor x, List<Tensor> params) {
        return forward(tape, x, params, (name, t) -> { });
    }

    /** {@link #forward(Tape, Tensor, List)}, telling {@code observer} every intermediate result. */
    public static Tensor forward(Tape tape, Tensor x, List<Tensor> params, LayerObserver observer) {
        Tensor h1Conv = Ops.conv2d(tape, x, params.get(0), params.get(1));        // [N, 20, 26, 26]
        observer.output("h1_conv", h1Conv);
        Tensor h1Activation = Ops.relu(tape, h1Conv);
        observer.output("h1_activation", h1Activation);
        Tensor h1 = Ops.avgPool2d(tape, h1Activation, 2, 2);                       // [N, 20, 13, 13]
        observer.output("h1", h1);
        Tensor h2Conv = Ops.conv2d(tape, h1, params.get(2), params.get(3));        // [N, 50, 9, 9]
        observer.output("h2_conv", h2Conv);
        Tensor h2Activation = Ops.relu(tape, h2Conv);
        observer.output("h2_activation", h2Activation);
        Tensor h2 = Ops.avgPool2d(tape, h2Activation, 2, 2);                       // [N, 50, 4, 4]
        h2 = h2.reshape(h2.dim(0), h2.size() / h2.dim(0));                        // [N, 800]
        observer.output("h2", h2);
        Tensor h3Linear = Ops.linear(tape, h2, params.get(4), params.get(5));      // [N, 128]
        observer.output("h3_linear", h3Linear);
        Tensor h3 = Ops.relu(tape, h3Linear);
        observer.output("h3", h3);
        Tensor yHat = Ops.linear(tape, h3, params.get(6), params.get(7));         // [N, 10]
        observer.output("y_hat", yHat);
        return yHat;
    }
}
