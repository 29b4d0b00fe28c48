package org.multigpulab.core.autograd;

import org.multigpulab.device.BiasShape;
import org.multigpulab.device.ConvPoolShape;
import org.multigpulab.device.ConvShape;
import org.multigpulab.device.KernelOp.AvgPoolBackward;
import org.multigpulab.device.KernelOp.AvgPoolForward;
import org.multigpulab.device.KernelOp.BiasAdd;
import org.multigpulab.device.KernelOp.BiasAddBackward;
import org.multigpulab.device.KernelOp.Conv2dBackwardData;
import org.multigpulab.device.KernelOp.Conv2dBackwardFilter;
import org.multigpulab.device.KernelOp.Conv2dBiasReluAvgPoolBackward;
import org.multigpulab.device.KernelOp.Conv2dBiasReluAvgPoolForward;
import org.multigpulab.device.KernelOp.Gemm;
import org.multigpulab.device.KernelOp.ReluAvgPoolBackward;
import org.multigpulab.device.KernelOp.ReluAvgPoolForward;
import org.multigpulab.device.KernelOp.ReluBackward;
import org.multigpulab.device.KernelOp.SoftmaxCrossEntropyBackward;
import org.multigpulab.device.KernelOp.SoftmaxCrossEntropyForward;
import org.multigpulab.device.Kernels;
import org.multigpulab.device.PoolShape;

/**
 * The differentiable operations of the notebook's LeNet, each forward step with its backward step beside it.
 * Every op runs on the device of its inputs through {@link Kernels} and records its backward step on the tape.
 */
public final class Ops {

    private Ops() {}

    /**
     * {@code F.conv2d(x, w, b)}: x [N, C, H, W], w [O, C, Kh, Kw], b [O] → [N, O, H−Kh+1, W−Kw+1]. The output is
     * written when it is first read, as a ReLU's is, so that a pooling of its ReLU can do all three in one op
     * ({@link #avgPool2d}); x, w and b are read then, which is the same as now: the forward pass that reads it
     * comes before any change of the parameters. Its backward step takes what reached the output.
     */
    public static Tensor conv2d(Tape tape, Tensor x, Tensor w, Tensor b) {
        ConvShape s = new ConvShape(x.dim(0), x.dim(1), x.dim(2), x.dim(3), w.dim(0), w.dim(2), w.dim(3));
        Kernels k = tape.kernels();
        Tensor y = tape.newTensor(
                x.requiresGrad() || w.requiresGrad() || b.requiresGrad(),
                s.batch(),
                s.outChannels(),
                s.outHeight(),
                s.outWidth());
        y.deferConvolution(new Tensor.Convolution(x, w, b, s));
        tape.record(y, () -> {
            if (tape.hasGrad(y)) {
                tape.accumulateGrad(w, dw -> k.launch(new Conv2dBackwardFilter(x.data(), y.grad(), dw, s)));
                tape.accumulateGrad(b, db -> k.launch(new BiasAddBackward(y.grad(), db, s.bias())));
                tape.accumulateGrad(x, dx -> k.launch(new Conv2dBackwardData(y.grad(), w.data(), dx, s)));
            }
        });
        return y;
    }

    /**
     * {@code F.relu(x)}, any shape. The ReLU is written when its result is first read, so that an
     * {@link #avgPool2d} straight after it can do both in one pass and never store it; {@code x} is read then,
     * which is the same as now since no op changes a tensor it has returned. Its backward step adds what reached
     * its result by any way other than such a pooling.
     */
    public static Tensor relu(Tape tape, Tensor x) {
        Kernels k = tape.kernels();
        Tensor y = tape.newTensor(x.requiresGrad(), x.shape());
        y.deferRelu(x);
        tape.record(y, () -> {
            if (tape.hasGrad(y)) {
                tape.accumulateGrad(x, dx -> k.launch(new ReluBackward(x.data(), y.grad(), dx, x.size())));
            }
        });
        return y;
    }

    /**
     * {@code F.avg_pool2d(x, kernel_size=window, stride=stride)}: x [N, C, H, W] → [N, C, H', W']. Of a ReLU
     * not yet written, the two in one pass each way ({@link ReluAvgPoolForward}), with the same result;
     * and where that ReLU's input is a convolution not yet written whose input needs no gradient (a network's
     * first layer), the three in one op each way ({@link Conv2dBiasReluAvgPoolForward}), which never store
     * the convolution's output or its gradient.
     */
    public static Tensor avgPool2d(Tape tape, Tensor x, int window, int stride) {
        PoolShape s = new PoolShape(x.dim(0) * x.dim(1), x.dim(2), x.dim(3), window, stride);
        Kernels k = tape.kernels();
        Tensor y = tape.newTensor(x.requiresGrad(), x.dim(0), x.dim(1), s.outHeight(), s.outWidth());
        Tensor rectified = x.pendingReluOf();
        Tensor.Convolution c = rectified == null ? null : rectified.pendingConvolution();
        if (c != null && !c.x().requiresGrad()) {
            ConvPoolShape cs = new ConvPoolShape(c.s(), window, stride);
            k.launch(new Conv2dBiasReluAvgPoolForward(c.x().data(), c.w().data(), c.b().data(), y.data(), cs));
            tape.record(
                    y,
                    () -> tape.accumulateGrads(
                            c.w(),
                            c.b(),
                            (dw, db) -> k.launch(new Conv2dBiasReluAvgPoolBackward(
                                    c.x().data(), c.w().data(), c.b().data(), y.grad(), dw, db, cs))));
        } else if (rectified != null) {
            k.launch(new ReluAvgPoolForward(rectified.data(), y.data(), s));
            tape.record(
                    y,
                    () -> tape.accumulateGrad(
                            rectified, dr -> k.launch(new ReluAvgPoolBackward(rectified.data(), y.grad(), dr, s))));
        } else {
            k.launch(new AvgPoolForward(x.data(), y.data(), s));
            tape.record(y, () -> tape.accumulateGrad(x, dx -> k.launch(new AvgPoolBackward(y.grad(), dx, s))));
        }
        return y;
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
        k.launch(new Gemm(false, false, n, out, in, 1f, x.data(), w.data(), 0f, y.data()));
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
     * {@code loss(y_hat, y)} with reduction "none", to be summed: returns the per-sample losses [N], and
     * {@link Tape#backward} from them differentiates their sum, as the notebook's {@code loss(...).sum().backward()}.
     */
    public static Tensor crossEntropySum(Tape tape, Tensor logits, Tensor labels) {
        int n = logits.dim(0), classes = logits.dim(1);
        Kernels k = tape.kernels();
        Tensor losses = tape.newTensor(logits.requiresGrad(), n);
        k.launch(new SoftmaxCrossEntropyForward(logits.data(), labels.data(), losses.data(), n, classes));
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
