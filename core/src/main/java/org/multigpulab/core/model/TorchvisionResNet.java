package org.multigpulab.core.model;

import java.util.ArrayList;
import java.util.List;
import org.multigpulab.core.autograd.Ops;
import org.multigpulab.core.autograd.Tape;
import org.multigpulab.core.autograd.Tensor;
import org.multigpulab.core.data.ImageShape;

/**
 * torchvision's ResNet-50 and ResNet-101 ({@code torchvision.models.resnet50()}, {@code resnet101()}; torchvision/
 * models/resnet.py, v0.19), for ImageNet's 224×224 RGB images and 1,000 classes: a 7×7 convolution of stride 2
 * and padding 3 to 64 channels, BatchNorm, ReLU, a 3×3 max pooling of stride 2 and padding 1; four stages of
 * bottleneck blocks ([3, 4, 6, 3] or [3, 4, 23, 3]) of 64, 128, 256, 512 channels widened 4 times at their output,
 * the first block of stages 2–4 of stride 2 on its 3×3 convolution (v1.5); global average pooling; linear 2,048 →
 * 1,000. A block is {@code relu(bn3(conv3(relu(bn2(conv2(relu(bn1(conv1(x))))))) + downsample(x))}, its
 * convolutions without bias, {@code downsample} a 1×1 convolution and a BatchNorm where the block changes the shape
 * (the first of each stage), else x as it is. 25,557,032 parameters (ResNet-50) and 44,549,160 (ResNet-101), under
 * torchvision's {@code state_dict} names ({@code layer1.0.conv1.weight}, {@code layer1.0.downsample.1.bias}, …) in
 * its order.
 *
 * <p>Initialised as torchvision initialises it: every convolution's weight N(0, 2/fan_out), fan_out the output
 * channels times the window ({@code kaiming_normal_(mode="fan_out", nonlinearity="relu")}), BatchNorm's γ 1 and β
 * 0, the linear layer PyTorch's default (uniform within ±1/√fan_in). Here it is timed without computing ({@code
 * ./lab simulate}): the labels of this lab's data sets are bytes, and its kernels of max pooling run on the {@code
 * cpu} and {@code sim} backends only. Stateless.
 */
public final class TorchvisionResNet implements Model {

    /** ImageNet's images as torchvision's training transforms crop them. */
    public static final ImageShape INPUT = new ImageShape(3, 224, 224);

    /** ImageNet's classes. */
    public static final int IMAGENET_CLASSES = 1000;

    private static final int[] WIDTHS = {64, 128, 256, 512};
    private static final int EXPANSION = 4;

    /** A bottleneck block; {@code downsample} and {@code downsampleNorm} are null where x is added as it is. */
    private record Bottleneck(
            ResNetLayers.Conv conv1,
            ResNetLayers.Norm bn1,
            ResNetLayers.Conv conv2,
            ResNetLayers.Norm bn2,
            ResNetLayers.Conv conv3,
            ResNetLayers.Norm bn3,
            ResNetLayers.Conv downsample,
            ResNetLayers.Norm downsampleNorm) {}

    private final String name;
    private final ResNetLayers layers = new ResNetLayers();
    private final ResNetLayers.Conv stem;
    private final ResNetLayers.Norm stemNorm;
    private final List<Bottleneck> blocks = new ArrayList<>();
    private final int fc;

    /** ResNet-50: stages of 3, 4, 6 and 3 blocks. */
    public static TorchvisionResNet resnet50() {
        return new TorchvisionResNet("ResNet50", 3, 4, 6, 3);
    }

    /** ResNet-101: stages of 3, 4, 23 and 3 blocks. */
    public static TorchvisionResNet resnet101() {
        return new TorchvisionResNet("ResNet101", 3, 4, 23, 3);
    }

    private TorchvisionResNet(String name, int... stageBlocks) {
        this.name = name;
        stem = conv("conv1", INPUT.channels(), WIDTHS[0], 7, 2, 3);
        stemNorm = layers.norm("bn1", WIDTHS[0]);
        int in = WIDTHS[0];
        for (int stage = 0; stage < WIDTHS.length; stage++) {
            int width = WIDTHS[stage], out = width * EXPANSION;
            for (int i = 0; i < stageBlocks[stage]; i++) {
                String block = "layer" + (stage + 1) + "." + i + ".";
                int stride = i == 0 && stage > 0 ? 2 : 1;
                boolean reshapes = stride != 1 || in != out;
                // registered as torchvision's Bottleneck registers them: conv1, bn1, conv2, bn2, conv3, bn3, downsample
                ResNetLayers.Conv conv1 = conv(block + "conv1", in, width, 1, 1, 0);
                ResNetLayers.Norm bn1 = layers.norm(block + "bn1", width);
                ResNetLayers.Conv conv2 = conv(block + "conv2", width, width, 3, stride, 1);
                ResNetLayers.Norm bn2 = layers.norm(block + "bn2", width);
                ResNetLayers.Conv conv3 = conv(block + "conv3", width, out, 1, 1, 0);
                ResNetLayers.Norm bn3 = layers.norm(block + "bn3", out);
                ResNetLayers.Conv downsample = reshapes ? conv(block + "downsample.0", in, out, 1, stride, 0) : null;
                ResNetLayers.Norm downsampleNorm = reshapes ? layers.norm(block + "downsample.1", out) : null;
                blocks.add(new Bottleneck(conv1, bn1, conv2, bn2, conv3, bn3, downsample, downsampleNorm));
                in = out;
            }
        }
        fc = layers.parameters.size();
        float bound = ResNetLayers.defaultBound(in);
        layers.parameters.add(ParameterSpec.uniform("fc.weight", bound, IMAGENET_CLASSES, in));
        layers.parameters.add(ParameterSpec.uniform("fc.bias", bound, IMAGENET_CLASSES));
    }

    /** A convolution without bias, its weight N(0, 2/fan_out) (torchvision's kaiming_normal_, mode fan_out). */
    private ResNetLayers.Conv conv(String name, int in, int out, int kernel, int stride, int padding) {
        float std = (float) Math.sqrt(2.0 / (out * kernel * kernel));
        return layers.conv(ParameterSpec.normal(name + ".weight", std, out, in, kernel, kernel), null, stride, padding);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public ImageShape input() {
        return INPUT;
    }

    @Override
    public List<ParameterSpec> parameters() {
        return List.copyOf(layers.parameters);
    }

    @Override
    public List<BufferSpec> buffers() {
        return List.copyOf(layers.buffers);
    }

    /** torchvision's {@code ResNet.forward}: X [N, 3, 224, 224] → logits [N, 1000]. */
    @Override
    public Tensor forward(Tape tape, Tensor x, List<Tensor> params, List<Tensor> buffers, Mode mode) {
        ResNetLayers.Pass pass = new ResNetLayers.Pass(tape, params, buffers, mode == Mode.TRAIN);
        Tensor h = pass.convNormRelu(stem, stemNorm, x); // [N, 64, 112, 112]
        h = Ops.maxPool2d(tape, h, 3, 2, 1); // [N, 64, 56, 56]
        for (Bottleneck b : blocks) {
            Tensor y = pass.convNormRelu(b.conv1(), b.bn1(), h);
            y = pass.convNormRelu(b.conv2(), b.bn2(), y);
            y = pass.norm(b.bn3(), pass.conv(b.conv3(), y));
            Tensor identity = b.downsample() == null ? h : pass.norm(b.downsampleNorm(), pass.conv(b.downsample(), h));
            h = Ops.relu(tape, Ops.add(tape, y, identity)); // [N, 256…2048, 56…7, 56…7]
        }
        return pass.poolAndClassify(h, fc); // [N, 1000]
    }
}
