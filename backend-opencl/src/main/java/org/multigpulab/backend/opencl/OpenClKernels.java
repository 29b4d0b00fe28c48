package org.multigpulab.backend.opencl;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.Set;
import org.multigpulab.device.BiasShape;
import org.multigpulab.device.Buffer;
import org.multigpulab.device.ConvShape;
import org.multigpulab.device.KernelOp;
import org.multigpulab.device.Kernels;
import org.multigpulab.device.PoolShape;

/**
 * The {@code opencl} device's kernels: each call enqueues one kernel of {@code kernels/*.cl} with one work-item
 * per element it writes. Arguments were checked by {@code InstrumentedKernels}.
 */
final class OpenClKernels implements Kernels {

    /**
     * The ops made of this backend's other kernels, as {@link Kernels}' defaults make them, with no
     * {@code __kernel} of their own: the fused first layer, which gives the separate kernels' results in their
     * passes over memory.
     */
    static final Set<KernelOp> COMPOSED =
            EnumSet.of(KernelOp.CONV2D_BIAS_RELU_AVG_POOL_FORWARD, KernelOp.CONV2D_BIAS_RELU_AVG_POOL_BACKWARD);

    /**
     * The ops that sum many terms for few outputs, over a batch or a whole gradient, which come again as
     * {@code NAME_by_groups}: a work-group per output, its work-items' partial sums added in local memory
     * (reduce.cl), for the devices that {@link OpenClDevice#sumsByGroups}.
     */
    static final Set<KernelOp> SUMMED_BY_GROUPS = EnumSet.of(
            KernelOp.CONV2D_BACKWARD_FILTER, KernelOp.BIAS_ADD_BACKWARD, KernelOp.GEMM, KernelOp.ARGMAX_MATCHES);

    private final OpenClDevice device;

    OpenClKernels(OpenClDevice device) {
        this.device = device;
    }

    /** The name of {@code op}'s kernel that sums by work-groups. */
    static String byGroups(KernelOp op) {
        return op.kernelName() + "_by_groups";
    }

    /** The kernel of {@code op}, which sums for each of {@code outputs}, as the device sums. */
    private void summing(KernelOp op, long outputs, Object... args) {
        if (device.sumsByGroups()) {
            device.launchGroups(byGroups(op), outputs, args);
        } else {
            device.launch(op, outputs, args);
        }
    }

    private static Object[] conv(ConvShape s) {
        return new Object[] {
            s.batch(), s.inChannels(), s.height(), s.width(), s.outChannels(), s.kernelHeight(), s.kernelWidth()
        };
    }

    private static Object[] with(Object[] head, Object[] tail) {
        Object[] all = Arrays.copyOf(head, head.length + tail.length);
        System.arraycopy(tail, 0, all, head.length, tail.length);
        return all;
    }

    @Override
    public void conv2dForward(Buffer x, Buffer w, Buffer y, ConvShape s) {
        device.launch(KernelOp.CONV2D_FORWARD, s.outputLength(), with(new Object[] {x, w, y}, conv(s)));
    }

    @Override
    public void conv2dBiasForward(Buffer x, Buffer w, Buffer b, Buffer y, ConvShape s) {
        device.launch(KernelOp.CONV2D_BIAS_FORWARD, s.outputLength(), with(new Object[] {x, w, b, y}, conv(s)));
    }

    @Override
    public void conv2dBackwardData(Buffer dy, Buffer w, Buffer dx, ConvShape s) {
        device.launch(KernelOp.CONV2D_BACKWARD_DATA, s.inputLength(), with(new Object[] {dy, w, dx}, conv(s)));
    }

    @Override
    public void conv2dBackwardFilter(Buffer x, Buffer dy, Buffer dw, ConvShape s) {
        summing(KernelOp.CONV2D_BACKWARD_FILTER, s.filterLength(), with(new Object[] {x, dy, dw}, conv(s)));
    }

    @Override
    public void biasAdd(Buffer y, Buffer b, BiasShape s) {
        device.launch(KernelOp.BIAS_ADD, s.length(), y, b, s.channels(), s.inner());
    }

    @Override
    public void biasAddBackward(Buffer dy, Buffer db, BiasShape s) {
        summing(KernelOp.BIAS_ADD_BACKWARD, s.channels(), dy, db, s.outer(), s.channels(), s.inner());
    }

    @Override
    public void avgPoolForward(Buffer x, Buffer y, PoolShape s) {
        device.launch(KernelOp.AVG_POOL_FORWARD, s.outputLength(), x, y, s.height(), s.width(), s.window(), s.stride());
    }

    @Override
    public void avgPoolBackward(Buffer dy, Buffer dx, PoolShape s) {
        device.launch(
                KernelOp.AVG_POOL_BACKWARD, s.inputLength(), dy, dx, s.height(), s.width(), s.window(), s.stride());
    }

    @Override
    public void reluForward(Buffer x, Buffer y, int n) {
        device.launch(KernelOp.RELU_FORWARD, n, x, y);
    }

    @Override
    public void reluBackward(Buffer x, Buffer dy, Buffer dx, int n) {
        device.launch(KernelOp.RELU_BACKWARD, n, x, dy, dx);
    }

    @Override
    public void reluAvgPoolForward(Buffer x, Buffer y, PoolShape s) {
        device.launch(
                KernelOp.RELU_AVG_POOL_FORWARD, s.outputLength(), x, y, s.height(), s.width(), s.window(), s.stride());
    }

    @Override
    public void reluAvgPoolBackward(Buffer x, Buffer dy, Buffer dx, PoolShape s) {
        device.launch(
                KernelOp.RELU_AVG_POOL_BACKWARD,
                s.inputLength(),
                x,
                dy,
                dx,
                s.height(),
                s.width(),
                s.window(),
                s.stride());
    }

    @Override
    public void gemm(
            boolean transA,
            boolean transB,
            int m,
            int n,
            int k,
            float alpha,
            Buffer a,
            Buffer b,
            float beta,
            Buffer c) {
        Object[] args = {transA ? 1 : 0, transB ? 1 : 0, m, n, k, alpha, a, b, beta, c};
        long outputs = (long) m * n;
        if (k > outputs) { // fewer outputs than terms in each
            summing(KernelOp.GEMM, outputs, args);
        } else {
            device.launch(KernelOp.GEMM, outputs, args);
        }
    }

    @Override
    public void softmaxCrossEntropyForward(Buffer logits, Buffer labels, Buffer loss, int batch, int classes) {
        device.launch(KernelOp.SOFTMAX_XENT_FORWARD, batch, logits, labels, loss, classes);
    }

    @Override
    public void softmaxCrossEntropyBackward(Buffer logits, Buffer labels, Buffer dlogits, int batch, int classes) {
        device.launch(KernelOp.SOFTMAX_XENT_BACKWARD, batch, logits, labels, dlogits, classes);
    }

    @Override
    public void axpy(float alpha, Buffer x, Buffer y, int n) {
        device.launch(KernelOp.AXPY, n, alpha, x, y);
    }

    @Override
    public void scale(float alpha, Buffer x, int n) {
        device.launch(KernelOp.SCALE, n, alpha, x);
    }

    @Override
    public void add(Buffer a, Buffer b, Buffer out, int n) {
        device.launch(KernelOp.ADD, n, a, b, out);
    }

    @Override
    public void fill(float value, Buffer x, int n) {
        device.launch(KernelOp.FILL, n, value, x);
    }

    @Override
    public void argmaxMatches(Buffer logits, Buffer labels, Buffer count, int batch, int classes) {
        summing(KernelOp.ARGMAX_MATCHES, 1, logits, labels, count, batch, classes);
    }
}
