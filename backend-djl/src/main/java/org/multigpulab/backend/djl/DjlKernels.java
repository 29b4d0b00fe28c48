package org.multigpulab.backend.djl;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.training.GradientCollector;
import java.util.function.Function;
import org.multigpulab.device.BiasShape;
import org.multigpulab.device.Buffer;
import org.multigpulab.device.ConvShape;
import org.multigpulab.device.KernelOp;
import org.multigpulab.device.KernelOp.Add;
import org.multigpulab.device.KernelOp.ArgmaxMatches;
import org.multigpulab.device.KernelOp.AvgPoolBackward;
import org.multigpulab.device.KernelOp.AvgPoolForward;
import org.multigpulab.device.KernelOp.Axpy;
import org.multigpulab.device.KernelOp.BiasAdd;
import org.multigpulab.device.KernelOp.BiasAddBackward;
import org.multigpulab.device.KernelOp.Call;
import org.multigpulab.device.KernelOp.Conv2dBackwardData;
import org.multigpulab.device.KernelOp.Conv2dBackwardFilter;
import org.multigpulab.device.KernelOp.Conv2dBiasForward;
import org.multigpulab.device.KernelOp.Conv2dForward;
import org.multigpulab.device.KernelOp.Fill;
import org.multigpulab.device.KernelOp.Fused;
import org.multigpulab.device.KernelOp.Gemm;
import org.multigpulab.device.KernelOp.ReluAvgPoolBackward;
import org.multigpulab.device.KernelOp.ReluAvgPoolForward;
import org.multigpulab.device.KernelOp.ReluBackward;
import org.multigpulab.device.KernelOp.ReluForward;
import org.multigpulab.device.KernelOp.Scale;
import org.multigpulab.device.KernelOp.SoftmaxCrossEntropyBackward;
import org.multigpulab.device.KernelOp.SoftmaxCrossEntropyForward;
import org.multigpulab.device.Kernels;
import org.multigpulab.device.PoolShape;

/**
 * The kernels as libtorch operations through DJL's NDArray: forward and backward written out as explicit
 * operations, each call in its own {@link NDManager} so that every temporary is freed when it returns. The
 * backward convolutions use the textbook identities: the data gradient is a full convolution of {@code dy}
 * with the filter turned around, the filter gradient a convolution of the input (batch and channels swapped)
 * with {@code dy} as the filter. Pooling's backward is libtorch's, through autograd.
 */
final class DjlKernels implements Kernels {

    private static final Shape ONE = new Shape(1, 1);
    private static final Shape ZERO = new Shape(0, 0);

    private final DjlDevice device;

    DjlKernels(DjlDevice device) {
        this.device = device;
    }

    /** The first {@code count} elements of {@code buffer}, read into {@code scope}. */
    private static NDArray in(NDManager scope, Buffer buffer, long count) {
        return ((DjlBuffer) buffer.slice(0, Math.toIntExact(count))).read(scope);
    }

    /** Runs {@code body} in a fresh manager and writes what it returns into the first {@code count} of {@code out}. */
    private void into(Buffer out, long count, Function<NDManager, NDArray> body) {
        try (NDManager scope = device.scope()) {
            ((DjlBuffer) out.slice(0, Math.toIntExact(count))).write(body.apply(scope));
        }
    }

    private static NDArray conv(NDArray x, NDArray w) {
        return x.getNDArrayInternal().convolution(x, w, null, ONE, ZERO, ONE, 1).singletonOrThrow();
    }

    @Override
    public void launch(Call call) {
        switch (call) {
            case Conv2dForward(var x, var w, var y, var s) -> conv2dForward(x, w, y, s);
            case Conv2dBackwardData(var dy, var w, var dx, var s) -> conv2dBackwardData(dy, w, dx, s);
            case Conv2dBackwardFilter(var x, var dy, var dw, var s) -> conv2dBackwardFilter(x, dy, dw, s);
            case BiasAdd(var y, var b, var s) -> biasAdd(y, b, s);
            case BiasAddBackward(var dy, var db, var s) -> biasAddBackward(dy, db, s);
            case AvgPoolForward(var x, var y, var s) -> avgPoolForward(x, y, s);
            case AvgPoolBackward(var dy, var dx, var s) -> avgPoolBackward(dy, dx, s);
            case ReluForward(var x, var y, var n) -> reluForward(x, y, n);
            case ReluBackward(var x, var dy, var dx, var n) -> reluBackward(x, dy, dx, n);
            case Conv2dBiasForward(var x, var w, var b, var y, var s) -> conv2dBiasForward(x, w, b, y, s);
            case ReluAvgPoolForward(var x, var y, var s) -> reluAvgPoolForward(x, y, s);
            case ReluAvgPoolBackward(var x, var dy, var dx, var s) -> reluAvgPoolBackward(x, dy, dx, s);
            case Gemm(var transA, var transB, var m, var n, var k, var alpha, var a, var b, var beta, var c) ->
                gemm(transA, transB, m, n, k, alpha, a, b, beta, c);
            case SoftmaxCrossEntropyForward(var logits, var labels, var loss, var batch, var classes) ->
                softmaxCrossEntropyForward(logits, labels, loss, batch, classes);
            case SoftmaxCrossEntropyBackward(var logits, var labels, var dlogits, var batch, var classes) ->
                softmaxCrossEntropyBackward(logits, labels, dlogits, batch, classes);
            case Axpy(var alpha, var x, var y, var n) -> axpy(alpha, x, y, n);
            case Scale(var alpha, var x, var n) -> scale(alpha, x, n);
            case Add(var a, var b, var out, var n) -> add(a, b, out, n);
            case Fill(var value, var x, var n) -> fill(value, x, n);
            case KernelOp.SgdStep s -> sgdStep(s);
            case KernelOp.AdamStep a -> adamStep(a);
            case ArgmaxMatches(var logits, var labels, var count, var batch, var classes) ->
                argmaxMatches(logits, labels, count, batch, classes);
            case Fused f -> f.launchComposed(this);
        }
    }

    private void conv2dForward(Buffer x, Buffer w, Buffer y, ConvShape s) {
        into(y, s.outputLength(), m -> convolve(m, x, w, s));
    }

    private static NDArray convolve(NDManager m, Buffer x, Buffer w, ConvShape s) {
        s.requireStrideOneUnpadded("djl");
        return conv(
                in(m, x, s.inputLength()).reshape(s.batch(), s.inChannels(), s.height(), s.width()),
                in(m, w, s.filterLength()).reshape(s.outChannels(), s.inChannels(), s.kernelHeight(), s.kernelWidth()));
    }

    /**
     * The convolution, then the bias added as {@link #biasAdd} adds it, before the result leaves libtorch: the
     * bits of the two ops (libtorch's own bias would be added inside the convolution, in another order).
     */
    private void conv2dBiasForward(Buffer x, Buffer w, Buffer b, Buffer y, ConvShape s) {
        into(y, s.outputLength(), m -> plusBias(m, convolve(m, x, w, s), b, s.bias()));
    }

    private void conv2dBackwardData(Buffer dy, Buffer w, Buffer dx, ConvShape s) {
        s.requireStrideOneUnpadded("djl");
        into(dx, s.inputLength(), m -> {
            NDArray g = in(m, dy, s.outputLength()).reshape(s.batch(), s.outChannels(), s.outHeight(), s.outWidth());
            NDArray f = in(m, w, s.filterLength())
                    .reshape(s.outChannels(), s.inChannels(), s.kernelHeight(), s.kernelWidth());
            // dx = dy, padded by the filter's size less one, convolved with the filter turned by 180° and its
            // input and output channels swapped (DJL's PyTorch engine has no transposed convolution)
            NDArray turned = f.flip(2, 3).transpose(1, 0, 2, 3).duplicate(); // contiguous, as convolutions want
            Shape pad = new Shape(s.kernelHeight() - 1, s.kernelWidth() - 1);
            return g.getNDArrayInternal()
                    .convolution(g, turned, null, ONE, pad, ONE, 1)
                    .singletonOrThrow();
        });
    }

    private void conv2dBackwardFilter(Buffer x, Buffer dy, Buffer dw, ConvShape s) {
        s.requireStrideOneUnpadded("djl");
        into(dw, s.filterLength(), m -> {
            // dw[o, c] = Σ_n x[n, c] ⋆ dy[n, o]: channels of x as the batch, images as the channels
            NDArray input = in(m, x, s.inputLength())
                    .reshape(s.batch(), s.inChannels(), s.height(), s.width())
                    .transpose(1, 0, 2, 3);
            NDArray filter = in(m, dy, s.outputLength())
                    .reshape(s.batch(), s.outChannels(), s.outHeight(), s.outWidth())
                    .transpose(1, 0, 2, 3);
            return conv(input, filter).transpose(1, 0, 2, 3);
        });
    }

    private void biasAdd(Buffer y, Buffer bias, BiasShape s) {
        into(y, s.length(), m -> plusBias(m, in(m, y, s.length()), bias, s));
    }

    private static NDArray plusBias(NDManager m, NDArray y, Buffer bias, BiasShape s) {
        return y.reshape(s.outer(), s.channels(), s.inner())
                .add(in(m, bias, s.channels()).reshape(1, s.channels(), 1));
    }

    private void biasAddBackward(Buffer dy, Buffer db, BiasShape s) {
        into(
                db,
                s.channels(),
                m -> in(m, dy, s.length())
                        .reshape(s.outer(), s.channels(), s.inner())
                        .sum(new int[] {0, 2}));
    }

    private void avgPoolForward(Buffer x, Buffer y, PoolShape s) {
        into(
                y,
                s.outputLength(),
                m -> pool(in(m, x, s.inputLength()).reshape(1, s.planes(), s.height(), s.width()), s));
    }

    private static NDArray pool(NDArray planes, PoolShape s) {
        return planes.getNDArrayInternal()
                .avgPool(new Shape(s.window(), s.window()), new Shape(s.stride(), s.stride()), ZERO, false, true);
    }

    private void avgPoolBackward(Buffer dy, Buffer dx, PoolShape s) {
        into(dx, s.inputLength(), m -> poolGradient(m, in(m, dy, s.outputLength()), s));
    }

    /** The gradient of {@link #pool} as a flat array of the input's length, from {@code dy} of the output's. */
    private static NDArray poolGradient(NDManager m, NDArray dy, PoolShape s) {
        NDArray g = dy.reshape(1, s.planes(), s.outHeight(), s.outWidth());
        if (s.window() == s.stride()) {
            // windows tile the plane: each output's gradient, divided by the window's area, repeated over it;
            // rows and columns no window covered (floor mode) get zeros
            int k = s.window();
            NDArray spread = g.repeat(2, k).repeat(3, k).div(k * k);
            return spread.pad(new Shape(0, s.width() - s.outWidth() * k, 0, s.height() - s.outHeight() * k), 0)
                    .reshape(s.inputLength());
        }
        // overlapping windows: libtorch's own pooling backward, through DJL's autograd on a fresh tensor of
        // the input's shape, the gradient of sum(pool(x) · dy) with respect to x
        NDArray x = m.zeros(new Shape(1, s.planes(), s.height(), s.width()));
        try (GradientCollector collector = Libtorch.engine().newGradientCollector()) {
            x.setRequiresGradient(true);
            collector.backward(pool(x, s).mul(g).sum());
            return x.getGradient().duplicate().reshape(s.inputLength());
        }
    }

    private void reluForward(Buffer x, Buffer y, int n) {
        into(y, n, m -> relu(in(m, x, n)));
    }

    private static NDArray relu(NDArray x) {
        return x.getNDArrayInternal().relu();
    }

    private void reluBackward(Buffer x, Buffer dy, Buffer dx, int n) {
        into(dx, n, m -> reluGradient(in(m, x, n), in(m, dy, n)));
    }

    private static NDArray reluGradient(NDArray x, NDArray dy) {
        return dy.mul(x.gt(0f).toType(DataType.FLOAT32, false));
    }

    /** ReLU then pooling, as libtorch runs them: two of its kernels, nothing stored in between. */
    private void reluAvgPoolForward(Buffer x, Buffer y, PoolShape s) {
        into(
                y,
                s.outputLength(),
                m -> pool(relu(in(m, x, s.inputLength())).reshape(1, s.planes(), s.height(), s.width()), s));
    }

    private void reluAvgPoolBackward(Buffer x, Buffer dy, Buffer dx, PoolShape s) {
        into(
                dx,
                s.inputLength(),
                m -> reluGradient(in(m, x, s.inputLength()), poolGradient(m, in(m, dy, s.outputLength()), s)));
    }

    private void gemm(
            boolean transA,
            boolean transB,
            int m,
            int n,
            int k,
            float alpha,
            Buffer a,
            Buffer bMatrix,
            float beta,
            Buffer c) {
        long mk = (long) m * k, kn = (long) k * n, mn = (long) m * n;
        into(c, mn, s -> {
            NDArray left = transA
                    ? in(s, a, mk).reshape(k, m).transpose()
                    : in(s, a, mk).reshape(m, k);
            NDArray right = transB
                    ? in(s, bMatrix, kn).reshape(n, k).transpose()
                    : in(s, bMatrix, kn).reshape(k, n);
            NDArray product = left.matMul(right);
            if (alpha != 1f) {
                product = product.mul(alpha);
            }
            // beta = 0 must ignore c altogether, NaN included, as BLAS does
            return beta == 0f ? product : product.add(in(s, c, mn).reshape(m, n).mul(beta));
        });
    }

    private static NDArray oneHot(NDManager m, Buffer labels, int batch, int classes) {
        return in(m, labels, batch)
                .toType(DataType.INT64, false)
                .oneHot(classes)
                .toType(DataType.FLOAT32, false);
    }

    private void softmaxCrossEntropyForward(Buffer logits, Buffer labels, Buffer loss, int batch, int classes) {
        into(
                loss,
                batch,
                m -> in(m, logits, (long) batch * classes)
                        .reshape(batch, classes)
                        .logSoftmax(1)
                        .mul(oneHot(m, labels, batch, classes))
                        .sum(new int[] {1})
                        .neg());
    }

    private void softmaxCrossEntropyBackward(Buffer logits, Buffer labels, Buffer dlogits, int batch, int classes) {
        into(dlogits, (long) batch * classes, m -> {
            // softmax − one-hot, with the label's entry as minus the other classes' probabilities: p − 1 for a
            // confident p near 1 would cancel to a few float32 ulps of 1, far more than the entry itself
            NDArray y = oneHot(m, labels, batch, classes);
            NDArray others = in(m, logits, (long) batch * classes)
                    .reshape(batch, classes)
                    .softmax(1)
                    .mul(y.neg().add(1f));
            return others.sub(y.mul(others.sum(new int[] {1}, true)));
        });
    }

    private void axpy(float alpha, Buffer x, Buffer y, int n) {
        into(y, n, m -> in(m, y, n).add(in(m, x, n).mul(alpha)));
    }

    private void scale(float alpha, Buffer x, int n) {
        into(x, n, m -> in(m, x, n).mul(alpha));
    }

    private void add(Buffer a, Buffer bBuffer, Buffer out, int n) {
        into(out, n, m -> in(m, a, n).add(in(m, bBuffer, n)));
    }

    /** torch.optim.SGD's step as libtorch's element-wise ops; the momentum buffer first, then the parameter. */
    private void sgdStep(KernelOp.SgdStep s) {
        int n = s.n();
        Function<NDManager, NDArray> gradient = m -> {
            NDArray g = in(m, s.grad(), n).mul(s.gradScale());
            return s.weightDecay() != 0 ? g.add(in(m, s.param(), n).mul(s.weightDecay())) : g;
        };
        if (s.momentum() != 0) {
            into(
                    s.momentumBuffer(),
                    n,
                    m -> s.first()
                            ? gradient.apply(m)
                            : in(m, s.momentumBuffer(), n)
                                    .mul(s.momentum())
                                    .add(gradient.apply(m).mul(1 - s.dampening())));
        }
        into(s.param(), n, m -> {
            NDArray g = s.momentum() == 0
                    ? gradient.apply(m)
                    : s.nesterov()
                            ? gradient.apply(m).add(in(m, s.momentumBuffer(), n).mul(s.momentum()))
                            : in(m, s.momentumBuffer(), n);
            return in(m, s.param(), n).sub(g.mul(s.lr()));
        });
    }

    /** torch.optim.Adam's (AdamW's) step as libtorch's element-wise ops: m, then v, then the parameter. */
    private void adamStep(KernelOp.AdamStep a) {
        int n = a.n();
        if (a.decoupled()) {
            into(a.param(), n, m -> in(m, a.param(), n).mul(a.decay()));
        }
        Function<NDManager, NDArray> gradient = m -> {
            NDArray g = in(m, a.grad(), n).mul(a.gradScale());
            return !a.decoupled() && a.weightDecay() != 0
                    ? g.add(in(m, a.param(), n).mul(a.weightDecay()))
                    : g;
        };
        into(a.m(), n, m -> {
            NDArray mean = in(m, a.m(), n);
            return mean.add(gradient.apply(m).sub(mean).mul(1 - a.beta1()));
        });
        into(a.v(), n, m -> {
            NDArray g = gradient.apply(m);
            return in(m, a.v(), n).mul(a.beta2()).add(g.mul(g).mul(1 - a.beta2()));
        });
        into(a.param(), n, m -> {
            NDArray denom = in(m, a.v(), n).sqrt().div(a.correctionSqrt()).add(a.eps());
            return in(m, a.param(), n).sub(in(m, a.m(), n).mul(a.stepSize()).div(denom));
        });
    }

    private void fill(float value, Buffer x, int n) {
        into(x, n, m -> m.full(new Shape(n), value));
    }

    private void argmaxMatches(Buffer logits, Buffer labels, Buffer count, int batch, int classes) {
        into(
                count,
                1,
                m -> in(m, logits, (long) batch * classes)
                        .reshape(batch, classes)
                        .argMax(1)
                        .eq(in(m, labels, batch).toType(DataType.INT64, false))
                        .sum()
                        .toType(DataType.FLOAT32, false));
    }
}
