package org.multigpulab.core.model;

import java.util.ArrayList;
import java.util.List;
import org.multigpulab.core.autograd.Ops;
import org.multigpulab.core.autograd.Tape;
import org.multigpulab.core.autograd.Tensor;

/**
 * The convolutions and BatchNorms of a residual network, registered in the order its module registers them (their
 * parameters and buffers under {@code state_dict} names), and run over a forward pass's tensors: what d2l's
 * ResNet-18 and torchvision's ResNet-50 and -101 share. Filled while a model is built, then read only.
 */
final class ResNetLayers {

    /** A convolution: where its weight stands among the parameters, and its bias right after it if it has one. */
    record Conv(int weight, boolean bias, int stride, int padding) {}

    /** A BatchNorm: where its γ stands among the parameters (β follows), and its running mean among the buffers. */
    record Norm(int gamma, int runningMean) {}

    final List<ParameterSpec> parameters = new ArrayList<>();
    final List<BufferSpec> buffers = new ArrayList<>();

    /** A convolution of {@code weight} [out, in, k, k], with {@code bias} [out] or none (null). */
    Conv conv(ParameterSpec weight, ParameterSpec bias, int stride, int padding) {
        int at = parameters.size();
        parameters.add(weight);
        if (bias != null) {
            parameters.add(bias);
        }
        return new Conv(at, bias != null, stride, padding);
    }

    /** {@code nn.BatchNorm2d(channels)} called {@code name}: γ 1, β 0, running mean 0 and variance 1. */
    Norm norm(String name, int channels) {
        Norm n = new Norm(parameters.size(), buffers.size());
        parameters.add(ParameterSpec.ones(name + ".weight", channels));
        parameters.add(ParameterSpec.zeros(name + ".bias", channels));
        buffers.add(BufferSpec.floats(name + ".running_mean", 0f, channels));
        buffers.add(BufferSpec.floats(name + ".running_var", 1f, channels));
        buffers.add(BufferSpec.counter(name + ".num_batches_tracked"));
        return n;
    }

    /** PyTorch's default bound for a layer of {@code fanIn} inputs: 1/√fan_in. */
    static float defaultBound(int fanIn) {
        return (float) (1 / Math.sqrt(fanIn));
    }

    /** The layers of one forward pass over its parameters and buffers. */
    record Pass(Tape tape, List<Tensor> params, List<Tensor> buffers, boolean training) {

        Tensor conv(Conv c, Tensor x) {
            Tensor bias = c.bias() ? params.get(c.weight() + 1) : null;
            return Ops.conv2d(tape, x, params.get(c.weight()), bias, c.stride(), c.padding());
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

        /** {@code relu(norm(conv(x)))}. */
        Tensor convNormRelu(Conv c, Norm n, Tensor x) {
            return Ops.relu(tape, norm(n, conv(c, x)));
        }

        /** Global average pooling, then the linear layer of weight [classes, in] at {@code fc}: x → [N, classes]. */
        Tensor poolAndClassify(Tensor x, int fc) {
            Tensor pooled = Ops.globalAvgPool2d(tape, x); // [N, C, 1, 1]
            Tensor flat = pooled.reshape(pooled.dim(0), pooled.dim(1)); // [N, C]
            return Ops.linearTransposed(tape, flat, params.get(fc), params.get(fc + 1));
        }
    }
}
