package org.multigpulab.backend.opencl;

import java.util.Arrays;
import java.util.Set;
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
 * The {@code opencl} device's kernels: each call enqueues one kernel of {@code kernels/*.cl}, named as its op, with
 * one work-item per element it writes; the fused first layer has no kernel of its own and launches its separate
 * ops. BatchNorm's per-channel sums take work-groups whatever the device ({@code batchnorm.cl}): one per block of
 * {@link #BN_BLOCK} values of a channel, then, where a channel has more than one block, {@link #SUM_PARTIALS} to
 * add the blocks' partial sums from a scratch buffer that the kernels keep (counted as the device's memory).
 * Arguments were checked by {@code InstrumentedKernels}.
 */
final class OpenClKernels implements Kernels {

    /**
     * The ops that sum many terms for few outputs, over a batch or a whole gradient, which come again as
     * {@code NAME_by_groups}: a work-group per output, its work-items' partial sums added in local memory
     * (reduce.cl), for the devices that {@link OpenClDevice#sumsByGroups}.
     */
    static final Set<KernelOp> SUMMED_BY_GROUPS = Set.of(
            KernelOp.of(Conv2dBackwardFilter.class),
            KernelOp.of(BiasAddBackward.class),
            KernelOp.of(Gemm.class),
            KernelOp.of(ArgmaxMatches.class));

    /**
     * The values of a channel that a work-group of BatchNorm's sums adds ({@code batchnorm.cl}): 16 for each of its
     * work-items. ResNet-18's first stage at a batch of 256 (64 channels of 200,704 values) takes 49 blocks a
     * channel, 3,136 work-groups.
     */
    static final int BN_BLOCK = 16 * OpenClDevice.GROUP;

    /** The kernel that adds the partial sums of BatchNorm's blocks ({@code batchnorm.cl}). */
    static final String SUM_PARTIALS = "sum_partials";

    private final OpenClDevice device;
    private Buffer scratch;

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
            s.batch(),
            s.inChannels(),
            s.height(),
            s.width(),
            s.outChannels(),
            s.kernelHeight(),
            s.kernelWidth(),
            s.stride(),
            s.padding()
        };
    }

    private static Object[] with(Object[] head, Object[] tail) {
        Object[] all = Arrays.copyOf(head, head.length + tail.length);
        System.arraycopy(tail, 0, all, head.length, tail.length);
        return all;
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
                        call.op().kernelName() + " is not among the opencl backend's kernels; the models"
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
            case KernelOp.SgdStep s ->
                device.launch(
                        KernelOp.of(KernelOp.SgdStep.class),
                        s.n(),
                        s.lr(),
                        s.momentum(),
                        s.dampening(),
                        s.nesterov() ? 1 : 0,
                        s.weightDecay(),
                        s.gradScale(),
                        s.first() ? 1 : 0,
                        s.param(),
                        s.grad(),
                        s.momentumBuffer());
            case KernelOp.AdamStep a ->
                device.launch(
                        KernelOp.of(KernelOp.AdamStep.class),
                        a.n(),
                        a.stepSize(),
                        a.correctionSqrt(),
                        a.beta1(),
                        a.beta2(),
                        a.eps(),
                        a.weightDecay(),
                        a.decoupled() ? a.decay() : 1f,
                        a.decoupled() ? 1 : 0,
                        a.gradScale(),
                        a.param(),
                        a.grad(),
                        a.m(),
                        a.v());
            case SquaredDeviations(var x, var mean, var m2, var s) -> squaredDeviations(x, mean, m2, s);
            case BatchNormForward(var x, var mean, var var, var gamma, var beta, var y, var eps, var s) ->
                device.launchElements(
                        KernelOp.of(BatchNormForward.class),
                        s.length(),
                        x,
                        mean,
                        var,
                        gamma,
                        beta,
                        y,
                        eps,
                        s.channels(),
                        s.inner());
            case BatchNormRunningUpdate u ->
                device.launchElements(
                        KernelOp.of(BatchNormRunningUpdate.class),
                        u.channels(),
                        u.mean(),
                        u.var(),
                        u.runningMean(),
                        u.runningVar(),
                        u.tracked(),
                        u.momentum(),
                        (float) ((double) u.count() / (u.count() - 1)));
            case BatchNormBackwardReduce(var x, var dy, var mean, var var, var sumDy, var sumDyXhat, var eps, var s) ->
                batchNormBackwardReduce(x, dy, mean, var, sumDy, sumDyXhat, eps, s);
            case BatchNormBackwardData b ->
                device.launchElements(
                        KernelOp.of(BatchNormBackwardData.class),
                        b.s().length(),
                        b.x(),
                        b.dy(),
                        b.mean(),
                        b.var(),
                        b.gamma(),
                        b.sumDy(),
                        b.sumDyXhat(),
                        b.dx(),
                        b.eps(),
                        (float) b.count(),
                        b.s().channels(),
                        b.s().inner());
            case ArgmaxMatches(var logits, var labels, var count, var batch, var classes) ->
                argmaxMatches(logits, labels, count, batch, classes);
            case Fused f -> f.launchComposed(this);
        }
    }

    private void conv2dForward(Buffer x, Buffer w, Buffer y, ConvShape s) {
        device.launch(KernelOp.of(Conv2dForward.class), s.outputLength(), with(new Object[] {x, w, y}, conv(s)));
    }

    private void conv2dBiasForward(Buffer x, Buffer w, Buffer b, Buffer y, ConvShape s) {
        device.launch(KernelOp.of(Conv2dBiasForward.class), s.outputLength(), with(new Object[] {x, w, b, y}, conv(s)));
    }

    private void conv2dBackwardData(Buffer dy, Buffer w, Buffer dx, ConvShape s) {
        device.launch(KernelOp.of(Conv2dBackwardData.class), s.inputLength(), with(new Object[] {dy, w, dx}, conv(s)));
    }

    private void conv2dBackwardFilter(Buffer x, Buffer dy, Buffer dw, ConvShape s) {
        summing(KernelOp.of(Conv2dBackwardFilter.class), s.filterLength(), with(new Object[] {x, dy, dw}, conv(s)));
    }

    private void biasAdd(Buffer y, Buffer b, BiasShape s) {
        device.launch(KernelOp.of(BiasAdd.class), s.length(), y, b, s.channels(), s.inner());
    }

    private void biasAddBackward(Buffer dy, Buffer db, BiasShape s) {
        summing(KernelOp.of(BiasAddBackward.class), s.channels(), dy, db, s.outer(), s.channels(), s.inner());
    }

    private void avgPoolForward(Buffer x, Buffer y, PoolShape s) {
        device.launch(
                KernelOp.of(AvgPoolForward.class),
                s.outputLength(),
                x,
                y,
                s.height(),
                s.width(),
                s.window(),
                s.stride());
    }

    private void avgPoolBackward(Buffer dy, Buffer dx, PoolShape s) {
        device.launch(
                KernelOp.of(AvgPoolBackward.class),
                s.inputLength(),
                dy,
                dx,
                s.height(),
                s.width(),
                s.window(),
                s.stride());
    }

    private void reluForward(Buffer x, Buffer y, int n) {
        device.launch(KernelOp.of(ReluForward.class), n, x, y);
    }

    private void reluBackward(Buffer x, Buffer dy, Buffer dx, int n) {
        device.launch(KernelOp.of(ReluBackward.class), n, x, dy, dx);
    }

    private void reluAvgPoolForward(Buffer x, Buffer y, PoolShape s) {
        device.launch(
                KernelOp.of(ReluAvgPoolForward.class),
                s.outputLength(),
                x,
                y,
                s.height(),
                s.width(),
                s.window(),
                s.stride());
    }

    private void reluAvgPoolBackward(Buffer x, Buffer dy, Buffer dx, PoolShape s) {
        device.launch(
                KernelOp.of(ReluAvgPoolBackward.class),
                s.inputLength(),
                x,
                dy,
                dx,
                s.height(),
                s.width(),
                s.window(),
                s.stride());
    }

    private void gemm(
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
            summing(KernelOp.of(Gemm.class), outputs, args);
        } else {
            device.launch(KernelOp.of(Gemm.class), outputs, args);
        }
    }

    private void softmaxCrossEntropyForward(Buffer logits, Buffer labels, Buffer loss, int batch, int classes) {
        device.launch(KernelOp.of(SoftmaxCrossEntropyForward.class), batch, logits, labels, loss, classes);
    }

    private void softmaxCrossEntropyBackward(Buffer logits, Buffer labels, Buffer dlogits, int batch, int classes) {
        device.launch(KernelOp.of(SoftmaxCrossEntropyBackward.class), batch, logits, labels, dlogits, classes);
    }

    private void axpy(float alpha, Buffer x, Buffer y, int n) {
        device.launch(KernelOp.of(Axpy.class), n, alpha, x, y);
    }

    private void scale(float alpha, Buffer x, int n) {
        device.launch(KernelOp.of(Scale.class), n, alpha, x);
    }

    private void add(Buffer a, Buffer b, Buffer out, int n) {
        device.launch(KernelOp.of(Add.class), n, a, b, out);
    }

    private void fill(float value, Buffer x, int n) {
        device.launch(KernelOp.of(Fill.class), n, value, x);
    }

    /**
     * The blocks of a channel's {@code count} values that {@code batchnorm.cl}'s sums take a work-group each for:
     * from the shape alone, so that the sums add in the same order on every device.
     */
    private static int blocks(BiasShape s) {
        return (int) Math.ceilDiv((long) s.outer() * s.inner(), BN_BLOCK);
    }

    /** Scratch for the partial sums of {@code floats} blocks: one buffer, grown as needed, kept with the device. */
    private Buffer scratch(int floats) {
        if (scratch == null || scratch.length() < floats) {
            if (scratch != null) {
                scratch.close();
            }
            scratch = device.allocate(floats);
        }
        return scratch;
    }

    private void squaredDeviations(Buffer x, Buffer mean, Buffer m2, BiasShape s) {
        int c = s.channels(), count = s.outer() * s.inner(), b = blocks(s);
        Buffer out = b == 1 ? m2 : scratch(c * b);
        device.launchGroups(
                KernelOp.of(SquaredDeviations.class).kernelName(),
                (long) c * b,
                x,
                mean,
                out,
                c,
                s.inner(),
                count,
                b,
                BN_BLOCK);
        if (b > 1) {
            device.launchGroups(SUM_PARTIALS, c, out, b, c, m2, m2);
        }
    }

    private void batchNormBackwardReduce(
            Buffer x, Buffer dy, Buffer mean, Buffer var, Buffer sumDy, Buffer sumDyXhat, float eps, BiasShape s) {
        int c = s.channels(), count = s.outer() * s.inner(), b = blocks(s);
        Buffer partials = b == 1 ? null : scratch(2 * c * b);
        Buffer s1 = b == 1 ? sumDy : partials.slice(0, c * b), s2 = b == 1 ? sumDyXhat : partials.slice(c * b, c * b);
        device.launchGroups(
                KernelOp.of(BatchNormBackwardReduce.class).kernelName(),
                (long) c * b,
                x,
                dy,
                mean,
                var,
                eps,
                s1,
                s2,
                c,
                s.inner(),
                count,
                b,
                BN_BLOCK);
        if (b > 1) {
            device.launchGroups(SUM_PARTIALS, 2L * c, partials, b, c, sumDy, sumDyXhat);
        }
    }

    private void argmaxMatches(Buffer logits, Buffer labels, Buffer count, int batch, int classes) {
        summing(KernelOp.of(ArgmaxMatches.class), 1, logits, labels, count, batch, classes);
    }
}
