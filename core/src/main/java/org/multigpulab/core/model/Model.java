package org.multigpulab.core.model;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import org.multigpulab.core.autograd.Tape;
import org.multigpulab.core.autograd.Tensor;

/**
 * A classifier the data-parallel trainer can train: named parameters with their shapes and initialisation, and a
 * forward pass recorded on a {@link Tape} from a batch of 28×28 Fashion-MNIST images {@code [N, 1, 28, 28]} to
 * logits over the 10 classes {@code [N, 10]}. A model holds no parameters itself: they live in one replica per
 * device and are handed to every forward pass, as the notebook hands {@code params} to {@code lenet(X, params)}.
 */
public interface Model {

    int IMAGE_SIZE = 28;
    int CLASSES = 10;

    /** Its name for people ({@code LeNet}); lower-cased, the command line's ({@code --model lenet}). */
    String name();

    /** The parameters, in the order {@link #forward} takes them. */
    List<ParameterSpec> parameters();

    /** The forward pass: x {@code [N, 1, 28, 28]} → logits {@code [N, 10]}; params in {@link #parameters()}'s order. */
    Tensor forward(Tape tape, Tensor x, List<Tensor> params);

    /**
     * Initial parameters: each in order, as its {@link ParameterSpec.Init} says, drawn from one generator of random
     * seed {@code seed}.
     */
    default List<HostTensor> initParams(long seed) {
        Random random = new Random(seed);
        List<HostTensor> params = new ArrayList<>();
        for (ParameterSpec spec : parameters()) {
            params.add(spec.initialise(random));
        }
        return List.copyOf(params);
    }

    /** The number of parameters. */
    default int parameterCount() {
        return parameters().stream().mapToInt(ParameterSpec::size).sum();
    }

    /** The models {@link #named} knows: the notebook's LeNet and d2l's MLP. */
    static List<Model> all() {
        return List.of(new LeNet(), new Mlp());
    }

    /** The model called {@code name} on the command line: lenet or mlp. */
    static Model named(String name) {
        for (Model m : all()) {
            if (m.name().toLowerCase(Locale.ROOT).equals(name)) {
                return m;
            }
        }
        throw new IllegalArgumentException("unknown model '" + name + "'; choose lenet (the notebook's LeNet) or mlp"
                + " (d2l's multilayer perceptron)");
    }
}
