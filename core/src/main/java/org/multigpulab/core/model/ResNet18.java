package org.multigpulab.core.model;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.regex.Pattern;
import org.multigpulab.core.autograd.Ops;
import org.multigpulab.core.autograd.Tape;
import org.multigpulab.core.autograd.Tensor;
import org.multigpulab.core.data.ImageShape;

/**
 * d2l's {@code resnet18(10, in_channels=1)} of §12.6 for 1×28×28 Fashion-MNIST images: conv 3×3/1, padding 1, to 64
 * channels → BatchNorm → ReLU; four stages of two residual blocks of 64, 128, 256 and 512 channels, the first block
 * of stages 2–4 of stride 2 with a 1×1 convolution of stride 2 on its shortcut; global average pooling; linear 512 →
 * 10. A block is {@code relu(bn2(conv2(relu(bn1(conv1(x))))) + shortcut(x))}, its 3×3 convolutions padded by 1.
 * 11,175,818 parameters, and 7,825 numbers in buffers (BatchNorm's running statistics and counters). Its state carries PyTorch's
 * {@code state_dict} names ({@code 0.weight}, {@code resnet_block2.0.conv3.bias}, {@code fc.1.weight}, …) and
 * shapes (a linear weight is [out, in]), so that PyTorch loads it into d2l's model. Stateless.
 *
 * <p>Initialised as §12.6's {@code init_weights} leaves it: every convolution's and the linear layer's weight N(0,
 * 0.01²), their biases PyTorch's default (uniform within ±1/√fan_in), BatchNorm's γ 1 and β 0, running mean 0 and
 * variance 1. {@link #lazy()} is d2l 1.0.x's first call of {@code init_weights}, which skips the residual blocks'
 * lazy convolutions: their weights keep PyTorch's default (kaiming-uniform with a = √5, uniform within ±1/√fan_in).
 */
public final class ResNet18 implements Model {

    private static final ImageShape INPUT = LeNet.INPUT;
    private static final int[] STAGES = {64, 128, 256, 512};
    private static final float WEIGHT_STD = 0.01f;

    /** A convolution with its bias: where its weight stands among the parameters (its bias follows). */
    private record Conv(int weight, int stride, int padding) {}

    /** A BatchNorm: where its γ stands among the parameters (β follows), and its running mean among the buffers. */
    private record Norm(int gamma, int runningMean) {}

    /** A residual block; {@code shortcut} is null where the block adds its input as it is. */
    private record Block(Conv conv1, Conv conv2, Conv shortcut, Norm bn1, Norm bn2) {}

    private final boolean lazy;
    private final int[] widths;
    private final List<ParameterSpec> parameters = new ArrayList<>();
    private final List<BufferSpec> buffers = new ArrayList<>();
    private final Conv stem;
    private final Norm stemNorm;
    private final List<Block> blocks = new ArrayList<>();
    private final int fc;

    /** §12.6's ResNet-18, every convolution's weight N(0, 0.01²). */
    public ResNet18() {
        this(false, STAGES);
    }

    private ResNet18(boolean lazy, int[] widths) {
        if (widths.length != STAGES.length || Arrays.stream(widths).anyMatch(w -> w <= 0)) {
            throw new IllegalArgumentException(
                    "ResNet-18 has four stages of 1 channel or more, not " + Arrays.toString(widths));
        }
        this.lazy = lazy;
        this.widths = widths.clone();
        stem = conv("0", 1, widths[0], 3, 1, 1, false);
        stemNorm = norm("1", widths[0]);
        int in = widths[0];
        for (int stage = 0; stage < widths.length; stage++) {
            int out = widths[stage];
            for (int i = 0; i < 2; i++) {
                String name = "resnet_block" + (stage + 1) + "." + i + ".";
                boolean downsample = i == 0 && stage > 0;
                int stride = downsample ? 2 : 1;
                // registered as d2l's Residual registers them: conv1, conv2, conv3, bn1, bn2
                Conv conv1 = conv(name + "conv1", in, out, 3, stride, 1, true);
                Conv conv2 = conv(name + "conv2", out, out, 3, 1, 1, true);
                Conv shortcut = downsample ? conv(name + "conv3", in, out, 1, stride, 0, true) : null;
                blocks.add(new Block(conv1, conv2, shortcut, norm(name + "bn1", out), norm(name + "bn2", out)));
                in = out;
            }
        }
        fc = parameters.size();
        parameters.add(ParameterSpec.normal("fc.1.weight", WEIGHT_STD, Model.CLASSES, in));
        parameters.add(ParameterSpec.uniform("fc.1.bias", defaultBound(in), Model.CLASSES));
    }

    /** d2l 1.0.x's first run: the residual blocks' convolution weights keep PyTorch's default initialisation. */
    public static ResNet18 lazy() {
        return new ResNet18(true, STAGES);
    }

    /** The same layers with stages of {@code widths} channels (four): narrow ones for quick experiments and tests. */
    public static ResNet18 withWidths(int... widths) {
        return new ResNet18(false, widths);
    }

    /**
     * §12.6's {@code net.apply(init_weights)} on a state the model already has, as the book's second {@code train}
     * call does to the net its first call trained: every convolution's and the linear layer's weight drawn again,
     * N(0, 0.01²), from one generator of random seed {@code seed}; biases, BatchNorm's γ and β and its running
     * statistics as they were.
     */
    public List<HostTensor> initWeights(List<HostTensor> state, long seed) {
        if (state.size() != parameters.size() + buffers.size()) {
            throw new IllegalArgumentException("a state of " + name() + " has " + (parameters.size() + buffers.size())
                    + " tensors, not " + state.size());
        }
        Random random = new Random(seed);
        List<HostTensor> drawn = new ArrayList<>(state);
        for (int i = 0; i < parameters.size(); i++) {
            ParameterSpec spec = parameters.get(i);
            boolean convOrLinear = spec.name().endsWith(".weight") && spec.shape().length >= 2;
            if (convOrLinear) {
                drawn.set(
                        i,
                        ParameterSpec.normal(spec.name(), WEIGHT_STD, spec.shape())
                                .initialise(random));
            }
        }
        return List.copyOf(drawn);
    }

    /** Every convolution's bias but the shortcuts' feeds a BatchNorm, and learns nothing but rounding. */
    @Override
    public boolean learns(String name) {
        return !BIAS_AHEAD_OF_BATCH_NORM.matcher(name).matches();
    }

    private static final Pattern BIAS_AHEAD_OF_BATCH_NORM = Pattern.compile("0\\.bias|.*\\.conv[12]\\.bias");

    /** PyTorch's default bound for a layer of {@code fanIn} inputs: 1/√fan_in. */
    private static float defaultBound(int fanIn) {
        return (float) (1 / Math.sqrt(fanIn));
    }

    private Conv conv(String name, int in, int out, int kernel, int stride, int padding, boolean residual) {
        int fanIn = in * kernel * kernel;
        int at = parameters.size();
        parameters.add(
                residual && lazy
                        ? ParameterSpec.uniform(name + ".weight", defaultBound(fanIn), out, in, kernel, kernel)
                        : ParameterSpec.normal(name + ".weight", WEIGHT_STD, out, in, kernel, kernel));
        parameters.add(ParameterSpec.uniform(name + ".bias", defaultBound(fanIn), out));
        return new Conv(at, stride, padding);
    }

    private Norm norm(String name, int channels) {
        Norm n = new Norm(parameters.size(), buffers.size());
        parameters.add(ParameterSpec.ones(name + ".weight", channels));
        parameters.add(ParameterSpec.zeros(name + ".bias", channels));
        buffers.add(BufferSpec.floats(name + ".running_mean", 0f, channels));
        buffers.add(BufferSpec.floats(name + ".running_var", 1f, channels));
        buffers.add(BufferSpec.counter(name + ".num_batches_tracked"));
        return n;
    }

    @Override
    public String name() {
        String name = lazy ? "ResNet18-lazy" : "ResNet18";
        return Arrays.equals(widths, STAGES) ? name : name + Arrays.toString(widths);
    }

    @Override
    public ImageShape input() {
        return INPUT;
    }

    @Override
    public List<ParameterSpec> parameters() {
        return List.copyOf(parameters);
    }

    @Override
    public List<BufferSpec> buffers() {
        return List.copyOf(buffers);
    }

    /** d2l's {@code net(X)}: X [N, 1, 28, 28] → logits [N, 10]. */
    @Override
    public Tensor forward(Tape tape, Tensor x, List<Tensor> params, List<Tensor> buffers, Mode mode) {
        Layers layers = new Layers(tape, params, buffers, mode == Mode.TRAIN);
        Tensor h = Ops.relu(tape, layers.norm(stemNorm, layers.conv(stem, x))); // [N, 64, 28, 28]
        for (Block b : blocks) {
            Tensor y = Ops.relu(tape, layers.norm(b.bn1(), layers.conv(b.conv1(), h)));
            y = layers.norm(b.bn2(), layers.conv(b.conv2(), y));
            Tensor shortcut = b.shortcut() == null ? h : layers.conv(b.shortcut(), h);
            h = Ops.relu(tape, Ops.add(tape, y, shortcut)); // [N, 64…512, 28…4, 28…4]
        }
        Tensor pooled = Ops.globalAvgPool2d(tape, h); // [N, 512, 1, 1]
        Tensor flat = pooled.reshape(pooled.dim(0), pooled.dim(1)); // [N, 512]
        return Ops.linearTransposed(tape, flat, params.get(fc), params.get(fc + 1)); // [N, 10]
    }

    /** The layers of one forward pass over its parameters and buffers. */
    private record Layers(Tape tape, List<Tensor> params, List<Tensor> buffers, boolean training) {

        Tensor conv(Conv c, Tensor x) {
            return Ops.conv2d(tape, x, params.get(c.weight()), params.get(c.weight() + 1), c.stride(), c.padding());
        }

        Tensor norm(Norm n, Tensor x) {
            return Ops.batchNorm2d(
                    tape,
                    x,
                    params.get(n.gamma()),
                    params.get(n.gamma() + 1),
                    buffers.get(n.runningMean()),
                    buffers.get(n.runningMean() + 1),
                    buffers.get(n.runningMean() + 2),
                    training);
        }
    }
}
