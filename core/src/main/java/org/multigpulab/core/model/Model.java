package org.multigpulab.core.model;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.ServiceLoader;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.multigpulab.core.autograd.Tape;
import org.multigpulab.core.autograd.Tensor;
import org.multigpulab.core.data.ImageShape;

/**
 * A classifier the data-parallel trainer can train, as PyTorch's {@code nn.Module} is: named parameters with their
 * shapes and initialisation, named buffers (state that is not trained), and a forward pass recorded on a
 * {@link Tape} in train or eval mode, from a batch of images {@code [N, C, H, W]} of its {@link #input()} shape to
 * logits over the classes {@code [N, 10]} (torchvision's ResNets: ImageNet's 1,000). A model holds no tensors itself: they live in one replica per device and
 * are handed to every forward pass, as the notebook hands {@code params} to {@code lenet(X, params)}.
 *
 * <p>Its state, as files and checkpoints hold it, is its parameters in order, then its buffers in order, under
 * their names.
 */
public interface Model {

    int CLASSES = 10;

    /** Its name for people ({@code LeNet}); lower-cased, the command line's ({@code --model lenet}). */
    String name();

    /** The shape of the images it takes: a data set's must be the same. */
    ImageShape input();

    /** The parameters, in the order {@link #forward} takes them. */
    List<ParameterSpec> parameters();

    /** The buffers, in the order {@link #forward} takes them; none by default. */
    default List<BufferSpec> buffers() {
        return List.of();
    }

    /**
     * The forward pass in {@code mode}: x {@code [N, C, H, W]} → logits {@code [N, 10]}; params and buffers in
     * {@link #parameters()}' and {@link #buffers()}' order. In {@link Mode#TRAIN} it may update its buffers.
     */
    Tensor forward(Tape tape, Tensor x, List<Tensor> params, List<Tensor> buffers, Mode mode);

    /**
     * The initial state: each parameter in order, as its {@link ParameterSpec.Init} says, drawn from one generator of
     * random seed {@code seed}; then each buffer at its initial value.
     */
    default List<HostTensor> initialState(long seed) {
        Random random = new Random(seed);
        List<HostTensor> state = new ArrayList<>();
        for (ParameterSpec spec : parameters()) {
            state.add(spec.initialise(random));
        }
        for (BufferSpec spec : buffers()) {
            state.add(spec.initialise());
        }
        return List.copyOf(state);
    }

    /** The names of its state, parameters then buffers: its {@code state_dict}'s keys. */
    default List<String> stateNames() {
        return Stream.concat(
                        parameters().stream().map(ParameterSpec::name),
                        buffers().stream().map(BufferSpec::name))
                .toList();
    }

    /** The shapes of its state, parameters then buffers. */
    default List<int[]> stateShapes() {
        return Stream.concat(
                        parameters().stream().map(ParameterSpec::shape),
                        buffers().stream().map(BufferSpec::shape))
                .toList();
    }

    /** The names and shapes of its state, parameters then buffers, for messages: {@code [W1 [20, 1, 3, 3], …]}. */
    default List<String> stateSpecs() {
        return Stream.concat(
                        parameters().stream().map(ParameterSpec::toString),
                        buffers().stream().map(BufferSpec::toString))
                .toList();
    }

    /**
     * Whether training moves the tensor of state {@code name} by more than float rounding; not for a convolution's
     * bias ahead of a BatchNorm, which takes any constant off each channel, so that the bias's gradient is zero but
     * for rounding (in PyTorch too), and comparing two runs' updates of it compares noise. All do by default.
     */
    default boolean learns(String name) {
        return true;
    }

    /** The number of parameters. */
    default int parameterCount() {
        return parameters().stream().mapToInt(ParameterSpec::size).sum();
    }

    /**
     * The models {@link #named} knows: the notebook's LeNet, d2l's MLP (and made wide), d2l's ResNet-18,
     * torchvision's ResNet-50 and ResNet-101, and any other model on the class path that
     * names itself in {@code META-INF/services/org.multigpulab.core.model.Model} ({@link ServiceLoader}).
     */
    static List<Model> all() {
        List<Model> models = new ArrayList<>(List.of(
                new LeNet(),
                new Mlp(),
                Mlp.wide(),
                new ResNet18(),
                ResNet18.lazy(),
                TorchvisionResNet.resnet50(),
                TorchvisionResNet.resnet101()));
        ServiceLoader.load(Model.class).forEach(models::add);
        return List.copyOf(models);
    }

    /** The model called {@code name} on the command line: lenet, mlp, or another of {@link #all()}. */
    static Model named(String name) {
        for (Model m : all()) {
            if (m.name().toLowerCase(Locale.ROOT).equals(name)) {
                return m;
            }
        }
        throw new IllegalArgumentException("unknown model '" + name + "'; choose lenet (the notebook's LeNet), mlp"
                + " (d2l's multilayer perceptron), mlp-wide (eight hidden layers of 2,048), resnet18 (d2l's ResNet-18"
                + " of §12.6), resnet18-lazy (the same as d2l 1.0.x first initialises it), resnet50, resnet101"
                + " (torchvision's, for ./lab simulate)"
                + all().stream()
                        .skip(7)
                        .map(m -> ", " + m.name().toLowerCase(Locale.ROOT))
                        .collect(Collectors.joining()));
    }
}
