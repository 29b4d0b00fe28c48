package org.multigpulab.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.IntFunction;
import org.multigpulab.device.BiasShape;
import org.multigpulab.device.Buffer;
import org.multigpulab.device.ConvShape;
import org.multigpulab.device.Device;
import org.multigpulab.device.KernelOp;
import org.multigpulab.device.KernelOp.Conv2dBackwardData;
import org.multigpulab.device.KernelOp.Conv2dBackwardFilter;
import org.multigpulab.device.KernelOp.Conv2dBiasForward;

/**
 * The convolutions and BatchNorm of d2l's ResNet-18 on 28×28 Fashion-MNIST images ({@code resnet18(10, 1)}: a
 * 3×3 stem of stride 1 and padding 1, no max-pooling, four stages of two residual blocks), at a batch of 256, by
 * name: {@code resnet_<layer>_forward} (with its bias, as training runs it), {@code _backward_data} and {@code
 * _backward_filter}; {@code resnet_<bn>_squared_deviations}, {@code _forward}, {@code _backward_reduce}, {@code
 * _backward_data}. Unlike {@link LeNetKernels} a call's operands are allocated for that call alone: one of
 * {@code l1}'s tensors is 51 MB.
 */
final class ResNetKernels {

    static final int BATCH = 256;

    /**
     * Each distinct convolution, and how many of it a forward pass runs: the stem, each stage's 3×3 convolutions of
     * stride 1, its first of stride 2 ({@code _down}) and its 1×1 shortcut of stride 2 ({@code _short}).
     */
    static final Map<String, ConvShape> CONVS = new LinkedHashMap<>();

    static final Map<String, Integer> COUNTS = new LinkedHashMap<>();

    /** BatchNorm at each stage's channels and plane size (the stem's BatchNorm is stage 1's). */
    static final Map<String, BiasShape> NORMS = new LinkedHashMap<>();

    static {
        conv("stem", new ConvShape(BATCH, 1, 28, 28, 64, 3, 3, 1, 1), 1);
        conv("l1", new ConvShape(BATCH, 64, 28, 28, 64, 3, 3, 1, 1), 4);
        conv("l2_down", new ConvShape(BATCH, 64, 28, 28, 128, 3, 3, 2, 1), 1);
        conv("l2_short", new ConvShape(BATCH, 64, 28, 28, 128, 1, 1, 2, 0), 1);
        conv("l2", new ConvShape(BATCH, 128, 14, 14, 128, 3, 3, 1, 1), 3);
        conv("l3_down", new ConvShape(BATCH, 128, 14, 14, 256, 3, 3, 2, 1), 1);
        conv("l3_short", new ConvShape(BATCH, 128, 14, 14, 256, 1, 1, 2, 0), 1);
        conv("l3", new ConvShape(BATCH, 256, 7, 7, 256, 3, 3, 1, 1), 3);
        conv("l4_down", new ConvShape(BATCH, 256, 7, 7, 512, 3, 3, 2, 1), 1);
        conv("l4_short", new ConvShape(BATCH, 256, 7, 7, 512, 1, 1, 2, 0), 1);
        conv("l4", new ConvShape(BATCH, 512, 4, 4, 512, 3, 3, 1, 1), 3);
        NORMS.put("bn1", new BiasShape(BATCH, 64, 28 * 28));
        NORMS.put("bn2", new BiasShape(BATCH, 128, 14 * 14));
        NORMS.put("bn3", new BiasShape(BATCH, 256, 7 * 7));
        NORMS.put("bn4", new BiasShape(BATCH, 512, 4 * 4));
    }

    private static void conv(String name, ConvShape s, int count) {
        CONVS.put(name, s);
        COUNTS.put(name, count);
    }

    private static final String[] CONV_PASSES = {"forward", "backward_data", "backward_filter"};
    private static final String[] NORM_KERNELS = {"squared_deviations", "forward", "backward_reduce", "backward_data"};

    private ResNetKernels() {}

    /** Every kernel's name, convolutions first. */
    static List<String> names() {
        List<String> names = new ArrayList<>();
        for (String layer : CONVS.keySet()) {
            for (String pass : CONV_PASSES) {
                names.add("resnet_" + layer + "_" + pass);
            }
        }
        for (String bn : NORMS.keySet()) {
            for (String kernel : NORM_KERNELS) {
                names.add("resnet_" + bn + "_" + kernel);
            }
        }
        return names;
    }

    /** The call named {@code name} with random operands on {@code d}, or null if there is no such kernel. */
    static KernelOp.Call on(Device d, String name) {
        Random random = new Random(1);
        return call(name, n -> random(d, n, random));
    }

    /** The call named {@code name}, its buffers from {@code buffers} (null ones do for its FLOPs and bytes). */
    static KernelOp.Call call(String name, IntFunction<Buffer> buffers) {
        if (!name.startsWith("resnet_")) {
            return null;
        }
        for (Map.Entry<String, ConvShape> e : CONVS.entrySet()) {
            ConvShape s = e.getValue();
            String prefix = "resnet_" + e.getKey() + "_";
            if (!name.startsWith(prefix)) {
                continue;
            }
            switch (name.substring(prefix.length())) {
                case "forward" -> {
                    return new Conv2dBiasForward(
                            buffers.apply(s.inputLength()),
                            buffers.apply(s.filterLength()),
                            buffers.apply(s.outChannels()),
                            buffers.apply(s.outputLength()),
                            s);
                }
                case "backward_data" -> {
                    return new Conv2dBackwardData(
                            buffers.apply(s.outputLength()),
                            buffers.apply(s.filterLength()),
                            buffers.apply(s.inputLength()),
                            s);
                }
                case "backward_filter" -> {
                    return new Conv2dBackwardFilter(
                            buffers.apply(s.inputLength()),
                            buffers.apply(s.outputLength()),
                            buffers.apply(s.filterLength()),
                            s);
                }
                default -> {
                    // l2_down_… also starts with l2_: another layer's
                }
            }
        }
        for (Map.Entry<String, BiasShape> e : NORMS.entrySet()) {
            BiasShape s = e.getValue();
            String prefix = "resnet_" + e.getKey() + "_";
            if (!name.startsWith(prefix)) {
                continue;
            }
            int c = s.channels(), n = s.length();
            switch (name.substring(prefix.length())) {
                case "squared_deviations" -> {
                    return new KernelOp.SquaredDeviations(buffers.apply(n), buffers.apply(c), buffers.apply(c), s);
                }
                case "forward" -> {
                    return new KernelOp.BatchNormForward(
                            buffers.apply(n),
                            buffers.apply(c),
                            positive(buffers.apply(c)),
                            buffers.apply(c),
                            buffers.apply(c),
                            buffers.apply(n),
                            1e-5f,
                            s);
                }
                case "backward_reduce" -> {
                    return new KernelOp.BatchNormBackwardReduce(
                            buffers.apply(n),
                            buffers.apply(n),
                            buffers.apply(c),
                            positive(buffers.apply(c)),
                            buffers.apply(c),
                            buffers.apply(c),
                            1e-5f,
                            s);
                }
                case "backward_data" -> {
                    return new KernelOp.BatchNormBackwardData(
                            buffers.apply(n),
                            buffers.apply(n),
                            buffers.apply(c),
                            positive(buffers.apply(c)),
                            buffers.apply(c),
                            buffers.apply(c),
                            buffers.apply(c),
                            buffers.apply(n),
                            1e-5f,
                            (long) s.outer() * s.inner(),
                            s);
                }
                default -> {
                    return null;
                }
            }
        }
        return null;
    }

    /** A variance: {@code b} with each element made positive, or null for a call that only says its cost. */
    private static Buffer positive(Buffer b) {
        if (b == null) {
            return null;
        }
        float[] v = b.device().download(b);
        for (int i = 0; i < v.length; i++) {
            v[i] = v[i] * v[i] + 0.01f;
        }
        b.device().upload(v, 0, b);
        return b;
    }

    private static Buffer random(Device d, int n, Random random) {
        float[] v = new float[n];
        for (int i = 0; i < n; i++) {
            v[i] = (float) random.nextGaussian() * 0.1f;
        }
        return d.upload(v);
    }
}
