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

    /** A residual block; {@code shortcut} is null where the block adds its input as it is. */
    private record Block(
            ResNetLayers.Conv conv1,
            ResNetLayers.Conv conv2,
            ResNetLayers.Conv shortcut,
            ResNetLayers.Norm bn1,
            ResNetLayers.Norm bn2) {}

    private final boolean lazy;
    private final int[] widths;
    private final ResNetLayers layers = new ResNetLayers();
    private final List<ParameterSpec> parameters = layers.parameters;
    private final List<BufferSpec> buffers = layers.buffers;
    private final ResNetLayers.Conv stem;
    private final ResNetLayers.Norm stemNorm;
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
        stemNorm = layers.norm("1", widths[0]);
        int in = widths[0];
        for (int stage = 0; stage < widths.length; stage++) {
            int out = widths[stage];
            for (int i = 0; i < 2; i++) {
                String name = "resnet_block" + (stage + 1) + "." + i + ".";
                boolean downsample = i == 0 && stage > 0;
                int stride = downsample ? 2 : 1;
                // registered as d2l's Residual registers them: conv1, conv2, conv3, bn1, bn2
                ResNetLayers.Conv conv1 = conv(name + "conv1", in, out, 3, stride, 1, true);
                ResNetLayers.Conv conv2 = conv(name + "conv2", out, out, 3, 1, 1, true);
                ResNetLayers.Conv shortcut = downsample ? conv(name + "conv3", in, out, 1, stride, 0, true) : null;
                blocks.add(new Block(
                        conv1, conv2, shortcut, layers.norm(name + "bn1", out), layers.norm(name + "bn2", out)));
                in = out;
            }
        }
        fc = parameters.size();
        parameters.add(ParameterSpec.normal("fc.1.weight", WEIGHT_STD, Model.CLASSES, in));
        parameters.add(ParameterSpec.uniform("fc.1.bias", ResNetLayers.defaultBound(in), Model.CLASSES));
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

    private ResNetLayers.Conv conv(
            String name, int in, int out, int kernel, int stride, int padding, boolean residual) {
        float bound = ResNetLayers.defaultBound(in * kernel * kernel);
        return layers.conv(
                residual && lazy
                        ? ParameterSpec.uniform(name + ".weight", bound, out, in, kernel, kernel)
                        : ParameterSpec.normal(name + ".weight", WEIGHT_STD, out, in, kernel, kernel),
                ParameterSpec.uniform(name + ".bias", bound, out),
                stride,
                padding);
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
        ResNetLayers.Pass pass = new ResNetLayers.Pass(tape, params, buffers, mode == Mode.TRAIN);
        Tensor h = pass.convNormRelu(stem, stemNorm, x); // [N, 64, 28, 28]
        for (Block b : blocks) {
            Tensor y = pass.convNormRelu(b.conv1(), b.bn1(), h);
            y = pass.norm(b.bn2(), pass.conv(b.conv2(), y));
            Tensor shortcut = b.shortcut() == null ? h : pass.conv(b.shortcut(), h);
            h = Ops.relu(tape, Ops.add(tape, y, shortcut)); // [N, 64…512, 28…4, 28…4]
        }
        return pass.poolAndClassify(h, fc); // [N, 10]
    }
}
