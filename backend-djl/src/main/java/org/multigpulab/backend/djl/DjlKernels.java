package org.multigpulab.backend.djl;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.training.GradientCollector;
import java.util.function.Function;
import org.multigpulab.device.BiasShape;
import org.multigpulab.device.Buffer;
import org.multigpulab.device.ConvShape;
import org.multigpulab.device.DeviceException;
import org.multigpulab.device.KernelOp;
import org.multigpulab.device.KernelOp.Add;
import org.multigpulab.device.KernelOp.ArgmaxMatches;
import org.multigpulab.device.KernelOp.AvgPoolBackward;
import org.multigpulab.device.KernelOp.AvgPoolForward;
import org.multigpulab.device.KernelOp.Axpy;
import org.multigpulab.device.KernelOp.BatchNormBackwardData;
import org.multigpulab.device.KernelOp.BatchNormBackwardReduce;
import org.multigpulab.device.KernelOp.BatchNormForward;
import org.multigpulab.device.KernelOp.BatchNormRunningUpdate;
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
import org.multigpulab.device.KernelOp.SquaredDeviations;
import org.multigpulab.device.Kernels;
import org.multigpulab.device.PoolShape;

/**
 * The kernels as libtorch operations through DJL's NDArray: forward and backward written out as explicit
 * operations, each call in its own {@link NDManager} so that every temporary is freed when it returns. The
 * backward convolutions use the textbook identities: the data gradient is a full convolution of {@code dy}
 * (spread out by zeros between its pixels when the stride is larger than 1) with the filter turned around, the
 * filter gradient a convolution of the input (batch and channels swapped) with {@code dy} as the filter, its taps
 * the stride apart. BatchNorm's kernels are libtorch's element-wise ops and per-channel sums over the tensor viewed
 * as {@code [outer, channels, inner]}. Pooling's backward is libtorch's, through autograd.
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

    /** Writes {@code values} (any shape of {@code count} elements) into the first {@code count} of {@code out}. */
    private static void write(Buffer out, long count, NDArray values) {
        ((DjlBuffer) out.slice(0, Math.toIntExact(count))).write(values);
    }

    /** Runs {@code body} in a fresh manager and writes what it returns into the first {@code count} of {@code out}. */
    private void into(Buffer out, long count, Function<NDManager, NDArray> body) {
        try (NDManager scope = device.scope()) {
            write(out, count, body.apply(scope));
        }
    }

    /** libtorch's convolution of {@code x} with {@code w}, without bias, in one group. */
    private static NDArray conv(NDArray x, NDArray w, Shape stride, Shape padding, Shape dilation) {
        return x.getNDArrayInternal()
                .convolution(x, w, null, stride, padding, dilation, 1)
                .singletonOrThrow();
    }

    /** {@code v} along both axes of a plane. */
    private static Shape square(int v) {
        return new Shape(v, v);
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
            // only torchvision's ResNets pool so, and they run time-only on sim; a kernel here would go untested
            case KernelOp.MaxPoolForward _, KernelOp.MaxPoolBackward _ ->
                throw new DeviceException(
                        call.op().kernelName() + " is not among the djl backend's kernels; the models"
                                + " that need it (resnet50, resnet101) run on sim with compute off: ./lab simulate --model resnet50");
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
            case SquaredDeviations(var x, var mean, var m2, var s) -> squaredDeviations(x, mean, m2, s);
            case BatchNormForward(var x, var mean, var var, var gamma, var beta, var y, var eps, var s) ->
                batchNormForward(x, mean, var, gamma, beta, y, eps, s);
            case BatchNormRunningUpdate u -> batchNormRunningUpdate(u);
            case BatchNormBackwardReduce(var x, var dy, var mean, var var, var sumDy, var sumDyXhat, var eps, var s) ->
                batchNormBackwardReduce(x, dy, mean, var, sumDy, sumDyXhat, eps, s);
            case BatchNormBackwardData b -> batchNormBackwardData(b);
            case ArgmaxMatches(var logits, var labels, var count, var batch, var classes) ->
                argmaxMatches(logits, labels, count, batch, classes);
            case Fused f -> f.launchComposed(this);
        }
    }

    private void conv2dForward(Buffer x, Buffer w, Buffer y, ConvShape s) {
        into(y, s.outputLength(), m -> convolve(m, x, w, s));
    }

    private static NDArray convolve(NDManager m, Buffer x, Buffer w, ConvShape s) {
        return conv(
                in(m, x, s.inputLength()).reshape(s.batch(), s.inChannels(), s.height(), s.width()),
                in(m, w, s.filterLength()).reshape(s.outChannels(), s.inChannels(), s.kernelHeight(), s.kernelWidth()),
                square(s.stride()),
                square(s.padding()),
                ONE);
    }

    /**
     * The convolution, then the bias added as {@link #biasAdd} adds it, before the result leaves libtorch: the
     * bits of the two ops (libtorch's own bias would be added inside the convolution, in another order).
     */
    private void conv2dBiasForward(Buffer x, Buffer w, Buffer b, Buffer y, ConvShape s) {
        into(y, s.outputLength(), m -> plusBias(m, convolve(m, x, w, s), b, s.bias()));
    }

    /**
     * {@code dx[n,c,a,b] = Σ_{o,i,j} dy[n,o,i,j] · w[o,c,a+p−i·stride, b+p−j·stride]} ({@code p} the padding), as a
     * convolution of stride 1 (DJL's PyTorch engine has no transposed one): {@code dy} with {@code stride − 1} zeros
     * after each pixel along both axes, so that its pixel {@code (i, j)} stands at {@code (i·stride, j·stride)} where
     * the filter's first tap read the padded input for it; {@code kernelHeight − 1 − p} rows of zeros above that and
     * {@code kernelWidth − 1 − p} columns left of it, and as many below and right as make {@code height +
     * kernelHeight − 1} rows and {@code width + kernelWidth − 1} columns (a negative count cuts rows or columns: those
     * of pixels whose windows lay wholly in the padding, or of zeros); then convolved with the filter turned by 180°
     * and its input and output channels swapped.
     */
    private void conv2dBackwardData(Buffer dy, Buffer w, Buffer dx, ConvShape s) {
        into(dx, s.inputLength(), m -> {
            int n = s.batch(), o = s.outChannels(), oh = s.outHeight(), ow = s.outWidth(), st = s.stride();
            NDArray g = in(m, dy, s.outputLength()).reshape(n, o, oh, ow);
            if (st > 1) {
                // [n, o, oh, ow] → [n, o, oh·st, ow·st], each pixel at the top left of an st × st block of zeros
                g = g.reshape(n, o, oh, 1, ow, 1)
                        .pad(new Shape(0, st - 1, 0, 0, 0, st - 1), 0)
                        .reshape(n, o, (long) oh * st, (long) ow * st);
            }
            int top = s.kernelHeight() - 1 - s.padding(), bottom = s.height() + s.padding() - oh * st;
            int left = s.kernelWidth() - 1 - s.padding(), right = s.width() + s.padding() - ow * st;
            Shape pad = ZERO;
            if (top == bottom && left == right && top >= 0 && left >= 0) {
                pad = new Shape(top, left); // the convolution pads: stride 1, and the padding at most the filter's
            } else {
                g = padOrCut(g, top, bottom, left, right);
            }
            NDArray f = in(m, w, s.filterLength()).reshape(o, s.inChannels(), s.kernelHeight(), s.kernelWidth());
            NDArray turned = f.flip(2, 3).transpose(1, 0, 2, 3).duplicate(); // contiguous, as convolutions want
            return conv(g, turned, ONE, pad, ONE);
        });
    }

    /**
     * {@code g}'s planes with {@code top}, {@code bottom}, {@code left} and {@code right} rows and columns of zeros
     * added, where they are positive, or cut, where negative.
     */
    private static NDArray padOrCut(NDArray g, int top, int bottom, int left, int right) {
        NDArray padded =
                g.pad(new Shape(Math.max(left, 0), Math.max(right, 0), Math.max(top, 0), Math.max(bottom, 0)), 0);
        if (Math.min(Math.min(top, bottom), Math.min(left, right)) >= 0) {
            return padded;
        }
        long rows = padded.getShape().get(2), columns = padded.getShape().get(3);
        return padded.get(new NDIndex()
                .addAllDim(2)
                .addSliceDim(Math.max(-top, 0), rows - Math.max(-bottom, 0))
                .addSliceDim(Math.max(-left, 0), columns - Math.max(-right, 0)));
    }

    /**
     * {@code dw[o,c,p,q] = Σ_{n,i,j} x[n,c,i·stride+p−pad, j·stride+q−pad] · dy[n,o,i,j]}: the input's channels as
     * the batch and its images as the channels, convolved with {@code dy} (batch and channels swapped) as the
     * filter, its taps {@code stride} apart (dilated) over the padded input; the result's first {@code kernelHeight ×
     * kernelWidth} positions (a stride that does not divide the padded input leaves more).
     */
    private void conv2dBackwardFilter(Buffer x, Buffer dy, Buffer dw, ConvShape s) {
        into(dw, s.filterLength(), m -> {
            NDArray input = in(m, x, s.inputLength())
                    .reshape(s.batch(), s.inChannels(), s.height(), s.width())
                    .transpose(1, 0, 2, 3);
            NDArray filter = in(m, dy, s.outputLength())
                    .reshape(s.batch(), s.outChannels(), s.outHeight(), s.outWidth())
                    .transpose(1, 0, 2, 3);
            NDArray full = conv(input, filter, ONE, square(s.padding()), square(s.stride()));
            if (full.getShape().get(2) != s.kernelHeight() || full.getShape().get(3) != s.kernelWidth()) {
                full = full.get(new NDIndex()
                        .addAllDim(2)
                        .addSliceDim(0, s.kernelHeight())
                        .addSliceDim(0, s.kernelWidth()));
            }
            return full.transpose(1, 0, 2, 3);
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

    // BatchNorm: each tensor viewed as [outer, channels, inner], per-channel vectors as [1, channels, 1].

    private static NDArray channels(NDManager m, Buffer b, BiasShape s) {
        return in(m, b, s.channels()).reshape(1, s.channels(), 1);
    }

    private static NDArray planes(NDManager m, Buffer b, BiasShape s) {
        return in(m, b, s.length()).reshape(s.outer(), s.channels(), s.inner());
    }

    /** {@code 1 / √(var + eps)} per channel, as {@code [1, channels, 1]}. */
    private static NDArray invStd(NDManager m, Buffer var, float eps, BiasShape s) {
        return channels(m, var, s).add(eps).sqrt().pow(-1f);
    }

    private static final int[] PER_CHANNEL = {0, 2};

    private void squaredDeviations(Buffer x, Buffer mean, Buffer m2, BiasShape s) {
        into(m2, s.channels(), m -> {
            NDArray d = planes(m, x, s).sub(channels(m, mean, s));
            return d.mul(d).sum(PER_CHANNEL);
        });
    }

    private void batchNormForward(
            Buffer x, Buffer mean, Buffer var, Buffer gamma, Buffer beta, Buffer y, float eps, BiasShape s) {
        into(
                y,
                s.length(),
                m -> planes(m, x, s)
                        .sub(channels(m, mean, s))
                        .mul(invStd(m, var, eps, s).mul(channels(m, gamma, s)))
                        .add(channels(m, beta, s)));
    }

    private void batchNormRunningUpdate(BatchNormRunningUpdate u) {
        int c = u.channels();
        float keep = 1 - u.momentum();
        float unbiased = (float) ((double) u.count() / (u.count() - 1));
        into(
                u.runningMean(),
                c,
                m -> in(m, u.runningMean(), c).mul(keep).add(in(m, u.mean(), c).mul(u.momentum())));
        into(
                u.runningVar(),
                c,
                m -> in(m, u.runningVar(), c)
                        .mul(keep)
                        .add(in(m, u.var(), c).mul(unbiased).mul(u.momentum())));
        into(u.tracked(), 1, m -> in(m, u.tracked(), 1).add(1f));
    }

    /** {@code Σ dy}, and {@code Σ dy · (x − mean)} times {@code 1 / √(var + eps)}, per channel. */
    private void batchNormBackwardReduce(
            Buffer x, Buffer dy, Buffer mean, Buffer var, Buffer sumDy, Buffer sumDyXhat, float eps, BiasShape s) {
        try (NDManager m = device.scope()) {
            NDArray g = planes(m, dy, s);
            NDArray dot = g.mul(planes(m, x, s).sub(channels(m, mean, s))).sum(PER_CHANNEL);
            NDArray xhat = dot.mul(invStd(m, var, eps, s).reshape(s.channels()));
            write(sumDy, s.channels(), g.sum(PER_CHANNEL));
            write(sumDyXhat, s.channels(), xhat);
        }
    }

    /** {@code gamma / √(var + eps) · (dy − sumDy / count − x̂ · sumDyXhat / count)}, per channel's coefficients. */
    private void batchNormBackwardData(BatchNormBackwardData b) {
        BiasShape s = b.s();
        float count = b.count();
        into(b.dx(), s.length(), m -> {
            NDArray invStd = invStd(m, b.var(), b.eps(), s);
            NDArray xhat = planes(m, b.x(), s).sub(channels(m, b.mean(), s)).mul(invStd);
            return planes(m, b.dy(), s)
                    .sub(channels(m, b.sumDy(), s).div(count))
                    .sub(xhat.mul(channels(m, b.sumDyXhat(), s).div(count)))
                    .mul(channels(m, b.gamma(), s).mul(invStd));
        });
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
