package org.multigpulab.core.autograd;

import java.util.Arrays;
import org.multigpulab.device.BiasShape;
import org.multigpulab.device.Buffer;
import org.multigpulab.device.ConvPoolShape;
import org.multigpulab.device.ConvShape;
import org.multigpulab.device.KernelOp.Add;
import org.multigpulab.device.KernelOp.AvgPoolBackward;
import org.multigpulab.device.KernelOp.AvgPoolForward;
import org.multigpulab.device.KernelOp.Axpy;
import org.multigpulab.device.KernelOp.BatchNormBackwardData;
import org.multigpulab.device.KernelOp.BatchNormBackwardReduce;
import org.multigpulab.device.KernelOp.BatchNormForward;
import org.multigpulab.device.KernelOp.BatchNormRunningUpdate;
import org.multigpulab.device.KernelOp.BiasAdd;
import org.multigpulab.device.KernelOp.BiasAddBackward;
import org.multigpulab.device.KernelOp.Conv2dBackwardData;
import org.multigpulab.device.KernelOp.Conv2dBackwardFilter;
import org.multigpulab.device.KernelOp.Conv2dBiasReluAvgPoolBackward;
import org.multigpulab.device.KernelOp.Conv2dBiasReluAvgPoolForward;
import org.multigpulab.device.KernelOp.Fill;
import org.multigpulab.device.KernelOp.Gemm;
import org.multigpulab.device.KernelOp.MaxPoolBackward;
import org.multigpulab.device.KernelOp.MaxPoolForward;
import org.multigpulab.device.KernelOp.ReluAvgPoolBackward;
import org.multigpulab.device.KernelOp.ReluAvgPoolForward;
import org.multigpulab.device.KernelOp.ReluBackward;
import org.multigpulab.device.KernelOp.Scale;
import org.multigpulab.device.KernelOp.SoftmaxCrossEntropyBackward;
import org.multigpulab.device.KernelOp.SoftmaxCrossEntropyForward;
import org.multigpulab.device.KernelOp.SquaredDeviations;
import org.multigpulab.device.Kernels;
import org.multigpulab.device.PoolShape;

/**
 * The differentiable operations of the models, each forward step with its backward step beside it.
 * Every op runs on the device of its inputs through {@link Kernels} and records its backward step on the tape.
 */
public final class Ops {

    private Ops() {}

    /**
     * {@code F.conv2d(x, w, b)}: x [N, C, H, W], w [O, C, Kh, Kw], b [O] → [N, O, H−Kh+1, W−Kw+1]. The output is
     * written when it is first read (the tape's {@link FusionPlanner}), so that a pooling of its ReLU can do all
     * three in one kernel ({@link #avgPool2d}). Its backward step takes what reached the output.
     */
    public static Tensor conv2d(Tape tape, Tensor x, Tensor w, Tensor b) {
        return conv2d(tape, x, w, b, 1, 0);
    }

    /**
     * {@code F.conv2d(x, w, b, stride, padding)}: the filter moved {@code stride} pixels at a time over x with
     * {@code padding} zeros around it, → [N, O, (H + 2·padding − Kh) / stride + 1, (W + 2·padding − Kw) / stride + 1].
     * {@code b} is null for a convolution without bias ({@code bias=False}, as torchvision's ResNets have ahead of
     * each BatchNorm).
     */
    public static Tensor conv2d(Tape tape, Tensor x, Tensor w, Tensor b, int stride, int padding) {
        if (x.dim(1) != w.dim(1)) {
            throw new IllegalArgumentException(
                    "conv2d: x has " + x.dim(1) + " channels but the filter expects " + w.dim(1));
        }
        ConvShape s =
                new ConvShape(x.dim(0), x.dim(1), x.dim(2), x.dim(3), w.dim(0), w.dim(2), w.dim(3), stride, padding);
        Kernels k = tape.kernels();
        Tensor y = tape.newTensor(
                x.requiresGrad() || w.requiresGrad() || (b != null && b.requiresGrad()),
                s.batch(),
                s.outChannels(),
                s.outHeight(),
                s.outWidth());
        tape.planner().deferConvolution(y, new FusionPlanner.Convolution(x, w, b, s));
        tape.record(y, () -> {
            if (tape.hasGrad(y)) {
                tape.accumulateGrad(w, dw -> k.launch(new Conv2dBackwardFilter(x.data(), y.grad(), dw, s)));
                if (b != null) {
                    tape.accumulateGrad(b, db -> k.launch(new BiasAddBackward(y.grad(), db, s.bias())));
                }
                tape.accumulateGrad(x, dx -> k.launch(new Conv2dBackwardData(y.grad(), w.data(), dx, s)));
            }
        });
        return y;
    }

    /** BatchNorm's ε and momentum, PyTorch's defaults. */
    public static final float BATCH_NORM_EPS = 1e-5f, BATCH_NORM_MOMENTUM = 0.1f;

    /**
     * {@code nn.BatchNorm2d} over x [N, C, H, W] with weight γ [C], bias β [C] and its buffers {@code runningMean},
     * {@code runningVar} [C] and {@code tracked} (num_batches_tracked). In {@code training} each channel is
     * normalised with its mean and biased variance over the batch, both passes summed over the devices that share
     * statistics ({@link Tape#statistics()}: this device alone, or every device with synchronized BatchNorm), and
     * the running statistics are updated from them (training, PyTorch's {@code model.train()}); otherwise the running
     * statistics normalise, and no gradient flows.
     */
    public static Tensor batchNorm2d(
            Tape tape,
            Tensor x,
            Tensor gamma,
            Tensor beta,
            Tensor runningMean,
            Tensor runningVar,
            Tensor tracked,
            boolean training) {
        int c = x.dim(1);
        if (gamma.size() != c || beta.size() != c || runningMean.size() != c || runningVar.size() != c) {
            throw new IllegalArgumentException("batch_norm: x has " + c + " channels, γ " + gamma.size() + ", β "
                    + beta.size() + ", the running statistics " + runningMean.size() + " and " + runningVar.size());
        }
        BiasShape s = new BiasShape(x.dim(0), c, x.dim(2) * x.dim(3));
        Kernels k = tape.kernels();
        Buffer in = tape.data(x);
        if (!training) {
            Tensor y = tape.newTensor(false, x.shape());
            k.launch(new BatchNormForward(
                    in, runningMean.data(), runningVar.data(), gamma.data(), beta.data(), y.data(), BATCH_NORM_EPS, s));
            return y;
        }
        BatchStatistics statistics = tape.statistics();
        Tensor moments = tape.newTensor(false, 2, c); // the mean, then the biased variance
        Buffer mean = moments.data().slice(0, c), var = moments.data().slice(c, c);
        k.launch(new BiasAddBackward(in, mean, s)); // Σ x
        long count = statistics.allReduce(mean, (long) s.outer() * s.inner());
        k.launch(new Scale(1f / count, mean, c));
        k.launch(new SquaredDeviations(in, mean, var, s));
        statistics.allReduce(var, (long) s.outer() * s.inner());
        k.launch(new Scale(1f / count, var, c));
        k.launch(new BatchNormRunningUpdate(
                mean, var, runningMean.data(), runningVar.data(), tracked.data(), BATCH_NORM_MOMENTUM, count, c));
        Tensor y = tape.newTensor(x.requiresGrad() || gamma.requiresGrad() || beta.requiresGrad(), x.shape());
        k.launch(new BatchNormForward(in, mean, var, gamma.data(), beta.data(), y.data(), BATCH_NORM_EPS, s));
        tape.record(y, () -> {
            if (!tape.hasGrad(y)) {
                return;
            }
            Tensor sums = tape.newTensor(false, 2, c); // Σ dy, then Σ dy · x̂
            Buffer sumDy = sums.data().slice(0, c), sumDyXhat = sums.data().slice(c, c);
            k.launch(new BatchNormBackwardReduce(x.data(), y.grad(), mean, var, sumDy, sumDyXhat, BATCH_NORM_EPS, s));
            tape.accumulateGrad(gamma, dgamma -> copy(k, sumDyXhat, dgamma, c));
            tape.accumulateGrad(beta, dbeta -> copy(k, sumDy, dbeta, c));
            if (x.requiresGrad()) {
                statistics.allReduce(sums.data(), (long) s.outer() * s.inner());
                tape.accumulateGrad(
                        x,
                        dx -> k.launch(new BatchNormBackwardData(
                                x.data(),
                                y.grad(),
                                mean,
                                var,
                                gamma.data(),
                                sumDy,
                                sumDyXhat,
                                dx,
                                BATCH_NORM_EPS,
                                count,
                                s)));
            }
        });
        return y;
    }

    /**
     * {@code nn.AdaptiveAvgPool2d((1, 1))}: x [N, C, H, W] → [N, C, 1, 1], the mean of each plane, for square
     * planes (a pooling whose one window is the plane).
     */
    public static Tensor globalAvgPool2d(Tape tape, Tensor x) {
        if (x.dim(2) != x.dim(3)) {
            throw new IllegalArgumentException(
                    "global average pooling takes square planes, not " + x.dim(2) + "×" + x.dim(3));
        }
        return avgPool2d(tape, x, x.dim(2), x.dim(2));
    }

    /**
     * {@code F.relu(x)}, any shape. The ReLU is written when its result is first read (the tape's
     * {@link FusionPlanner}), so that an {@link #avgPool2d} straight after it can do both in one pass and never store
     * it. Its backward step adds what reached its result by any way other than such a pooling.
     */
    public static Tensor relu(Tape tape, Tensor x) {
        Kernels k = tape.kernels();
        Tensor y = tape.newTensor(x.requiresGrad(), x.shape());
        tape.planner().deferRelu(y, x);
        tape.record(y, () -> {
            if (tape.hasGrad(y)) {
                tape.accumulateGrad(x, dx -> k.launch(new ReluBackward(x.data(), y.grad(), dx, x.size())));
            }
        });
        return y;
    }

    /**
     * {@code F.avg_pool2d(x, kernel_size=window, stride=stride)}: x [N, C, H, W] → [N, C, H', W']. Where the tape's
     * {@link FusionPlanner} finds x to be a ReLU not yet written, the two run in one kernel each way, with the same
     * result; where that ReLU's input is a convolution not yet written whose input needs no gradient (a network's
     * first layer), the three do, never storing the convolution's output or its gradient.
     */
    public static Tensor avgPool2d(Tape tape, Tensor x, int window, int stride) {
        PoolShape s = new PoolShape(x.dim(0) * x.dim(1), x.dim(2), x.dim(3), window, stride);
        Kernels k = tape.kernels();
        Tensor y = tape.newTensor(x.requiresGrad(), x.dim(0), x.dim(1), s.outHeight(), s.outWidth());
        switch (tape.planner().poolingOf(x, window, stride)) {
            case FusionPlanner.Pooling.OfConvolutionRelu(FusionPlanner.Convolution c, ConvPoolShape cs) -> {
                k.launch(new Conv2dBiasReluAvgPoolForward(tape.data(c.x()), c.w().data(), c.b().data(), y.data(), cs));
                tape.record(
                        y,
                        () -> tape.accumulateGrads(
                                c.w(),
                                c.b(),
                                (dw, db) -> k.launch(new Conv2dBiasReluAvgPoolBackward(
                                        c.x().data(), c.w().data(), c.b().data(), y.grad(), dw, db, cs))));
            }
            case FusionPlanner.Pooling.OfRelu(Tensor rectified) -> {
                k.launch(new ReluAvgPoolForward(tape.data(rectified), y.data(), s));
                tape.record(
                        y,
                        () -> tape.accumulateGrad(
                                rectified, dr -> k.launch(new ReluAvgPoolBackward(rectified.data(), y.grad(), dr, s))));
            }
            case FusionPlanner.Pooling.Plain() -> {
                k.launch(new AvgPoolForward(tape.data(x), y.data(), s));
                tape.record(y, () -> tape.accumulateGrad(x, dx -> k.launch(new AvgPoolBackward(y.grad(), dx, s))));
            }
        }
        return y;
    }

    /**
     * {@code F.max_pool2d(x, kernel_size=window, stride=stride, padding=padding)}: x [N, C, H, W] → [N, C, H', W'],
     * each window's largest element; its gradient goes to that element.
     */
    public static Tensor maxPool2d(Tape tape, Tensor x, int window, int stride, int padding) {
        PoolShape s = new PoolShape(x.dim(0) * x.dim(1), x.dim(2), x.dim(3), window, stride, padding);
        Kernels k = tape.kernels();
        Tensor y = tape.newTensor(x.requiresGrad(), x.dim(0), x.dim(1), s.outHeight(), s.outWidth());
        k.launch(new MaxPoolForward(tape.data(x), y.data(), s));
        tape.record(y, () -> tape.accumulateGrad(x, dx -> k.launch(new MaxPoolBackward(x.data(), y.grad(), dx, s))));
        return y;
    }

    /** {@code a + b}, two tensors of one shape (a residual block's sum); each gets the whole gradient. */
    public static Tensor add(Tape tape, Tensor a, Tensor b) {
        if (!Arrays.equals(a.shape(), b.shape())) {
            throw new IllegalArgumentException(
                    "add: shapes " + Arrays.toString(a.shape()) + " and " + Arrays.toString(b.shape()) + " differ");
        }
        Kernels k = tape.kernels();
        Tensor y = tape.newTensor(a.requiresGrad() || b.requiresGrad(), a.shape());
        k.launch(new Add(tape.data(a), tape.data(b), y.data(), y.size()));
        tape.record(y, () -> {
            tape.accumulateGrad(a, da -> copy(k, y.grad(), da, y.size()));
            tape.accumulateGrad(b, db -> copy(k, y.grad(), db, y.size()));
        });
        return y;
    }

    /** {@code to = from} over {@code n} elements on one device: zeros, then {@code from} added, which is exact. */
    public static void copy(Kernels k, Buffer from, Buffer to, int n) {
        k.launch(new Fill(0f, to, n));
        k.launch(new Axpy(1f, from, to, n));
    }

    /** {@code torch.mm(x, w) + b}: x [N, In], w [In, Out], b [Out] → [N, Out]. */
    public static Tensor linear(Tape tape, Tensor x, Tensor w, Tensor b) {
        int n = x.dim(0), in = x.dim(1), out = w.dim(1);
        if (w.dim(0) != in) {
            throw new IllegalArgumentException("linear: x has " + in + " features but w expects " + w.dim(0));
        }
        BiasShape bias = new BiasShape(n, out, 1);
        Kernels k = tape.kernels();
        Tensor y = tape.newTensor(x.requiresGrad() || w.requiresGrad() || b.requiresGrad(), n, out);
        k.launch(new Gemm(false, false, n, out, in, 1f, tape.data(x), w.data(), 0f, y.data()));
        k.launch(new BiasAdd(y.data(), b.data(), bias));
        tape.record(y, () -> {
            // dw [In, Out] = xᵀ · dy;  db = Σ_rows dy;  dx [N, In] = dy · wᵀ
            tape.accumulateGrad(w, dw -> k.launch(new Gemm(true, false, in, out, n, 1f, x.data(), y.grad(), 0f, dw)));
            tape.accumulateGrad(b, db -> k.launch(new BiasAddBackward(y.grad(), db, bias)));
            tape.accumulateGrad(x, dx -> k.launch(new Gemm(false, true, n, in, out, 1f, y.grad(), w.data(), 0f, dx)));
        });
        return y;
    }

    /**
     * {@code nn.Linear}'s {@code F.linear(x, w, b)} = {@code x · wᵀ + b}, its weight laid out as PyTorch's: x [N, In],
     * w [Out, In], b [Out] → [N, Out].
     */
    public static Tensor linearTransposed(Tape tape, Tensor x, Tensor w, Tensor b) {
        int n = x.dim(0), in = x.dim(1), out = w.dim(0);
        if (w.dim(1) != in) {
            throw new IllegalArgumentException("linear: x has " + in + " features but w expects " + w.dim(1));
        }
        BiasShape bias = new BiasShape(n, out, 1);
        Kernels k = tape.kernels();
        Tensor y = tape.newTensor(x.requiresGrad() || w.requiresGrad() || b.requiresGrad(), n, out);
        k.launch(new Gemm(false, true, n, out, in, 1f, tape.data(x), w.data(), 0f, y.data()));
        k.launch(new BiasAdd(y.data(), b.data(), bias));
        tape.record(y, () -> {
            // dw [Out, In] = dyᵀ · x;  db = Σ_rows dy;  dx [N, In] = dy · w
            tape.accumulateGrad(w, dw -> k.launch(new Gemm(true, false, out, in, n, 1f, y.grad(), x.data(), 0f, dw)));
            tape.accumulateGrad(b, db -> k.launch(new BiasAddBackward(y.grad(), db, bias)));
            tape.accumulateGrad(x, dx -> k.launch(new Gemm(false, false, n, in, out, 1f, y.grad(), w.data(), 0f, dx)));
        });
        return y;
    }

    /**
     * {@code loss(y_hat, y)} with reduction "none", to be summed: returns the per-sample losses [N], and
     * {@link Tape#backward} from them differentiates their sum, as the notebook's {@code loss(...).sum().backward()}.
     */
    public static Tensor crossEntropySum(Tape tape, Tensor logits, Tensor labels) {
        int n = logits.dim(0), classes = logits.dim(1);
        Kernels k = tape.kernels();
        Tensor losses = tape.newTensor(logits.requiresGrad(), n);
        k.launch(new SoftmaxCrossEntropyForward(tape.data(logits), labels.data(), losses.data(), n, classes));
        tape.record(
                losses,
                () -> tape.accumulateGrad(
                        logits,
                        dlogits -> k.launch(
                                new SoftmaxCrossEntropyBackward(logits.data(), labels.data(), dlogits, n, classes))));
        tape.markLoss(losses);
        return losses;
    }
}
