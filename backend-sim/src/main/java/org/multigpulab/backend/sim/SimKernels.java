package org.multigpulab.backend.sim;

import org.multigpulab.device.BiasShape;
import org.multigpulab.device.Buffer;
import org.multigpulab.device.ConvShape;
import org.multigpulab.device.KernelCost;
import org.multigpulab.device.Kernels;
import org.multigpulab.device.PoolShape;

/**
 * A logical GPU's kernels: each call is charged to the timeline (what it writes first, then what it reads) and
 * runs on the physical device with the buffers underneath. The {@code InstrumentedKernels} in front has
 * already checked that every buffer belongs to this logical GPU.
 */
final class SimKernels implements Kernels {

    private final Kernels physical;
    private final SimTimeline timeline;
    private final int device;
    private final boolean comm;

    /** {@code comm}: these are the kernels of the communication stream, timed beside the compute stream. */
    SimKernels(Kernels physical, SimTimeline timeline, int device, boolean comm) {
        this.physical = physical;
        this.timeline = timeline;
        this.device = device;
        this.comm = comm;
    }

    private static Buffer p(Buffer b) {
        return ((SimBuffer) b).physical;
    }

    private void charge(KernelCost cost, Buffer out, Buffer... in) {
        SimBuffer[] read = new SimBuffer[in.length];
        for (int i = 0; i < in.length; i++) {
            read[i] = (SimBuffer) in[i];
        }
        timeline.kernel(device, comm, cost, (SimBuffer) out, read);
    }

    @Override
    public void conv2dForward(Buffer x, Buffer w, Buffer y, ConvShape s) {
        charge(KernelCost.conv2dForward(s), y, x, w);
        physical.conv2dForward(p(x), p(w), p(y), s);
    }

    @Override
    public void conv2dBackwardData(Buffer dy, Buffer w, Buffer dx, ConvShape s) {
        charge(KernelCost.conv2dBackwardData(s), dx, dy, w);
        physical.conv2dBackwardData(p(dy), p(w), p(dx), s);
    }

    @Override
    public void conv2dBackwardFilter(Buffer x, Buffer dy, Buffer dw, ConvShape s) {
        charge(KernelCost.conv2dBackwardFilter(s), dw, x, dy);
        physical.conv2dBackwardFilter(p(x), p(dy), p(dw), s);
    }

    @Override
    public void biasAdd(Buffer y, Buffer b, BiasShape s) {
        charge(KernelCost.biasAdd(s), y, b);
        physical.biasAdd(p(y), p(b), s);
    }

    @Override
    public void biasAddBackward(Buffer dy, Buffer db, BiasShape s) {
        charge(KernelCost.biasAddBackward(s), db, dy);
        physical.biasAddBackward(p(dy), p(db), s);
    }

    @Override
    public void avgPoolForward(Buffer x, Buffer y, PoolShape s) {
        charge(KernelCost.avgPoolForward(s), y, x);
        physical.avgPoolForward(p(x), p(y), s);
    }

    @Override
    public void avgPoolBackward(Buffer dy, Buffer dx, PoolShape s) {
        charge(KernelCost.avgPoolBackward(s), dx, dy);
        physical.avgPoolBackward(p(dy), p(dx), s);
    }

    @Override
    public void reluForward(Buffer x, Buffer y, int n) {
        charge(KernelCost.reluForward(n), y, x);
        physical.reluForward(p(x), p(y), n);
    }

    @Override
    public void reluBackward(Buffer x, Buffer dy, Buffer dx, int n) {
        charge(KernelCost.reluBackward(n), dx, x, dy);
        physical.reluBackward(p(x), p(dy), p(dx), n);
    }

    @Override
    public void gemm(boolean transA, boolean transB, int m, int n, int k,
                     float alpha, Buffer a, Buffer b, float beta, Buffer c) {
        charge(KernelCost.gemm(m, n, k, beta), c, a, b);
        physical.gemm(transA, transB, m, n, k, alpha, p(a), p(b), beta, p(c));
    }

    @Override
    public void softmaxCrossEntropyForward(Buffer logits, Buffer labels, Buffer loss, int batch, int classes) {
        charge(KernelCost.softmaxCrossEntropyForward(batch, classes), loss, logits, labels);
        physical.softmaxCrossEntropyForward(p(logits), p(labels), p(loss), batch, classes);
    }

    @Override
    public void softmaxCrossEntropyBackward(Buffer logits, Buffer labels, Buffer dlogits, int batch, int classes) {
        charge(KernelCost.softmaxCrossEntropyBackward(batch, classes), dlogits, logits, labels);
        physical.softmaxCrossEntropyBackward(p(logits), p(labels), p(dlogits), batch, classes);
    }

    @Override
    public void axpy(float alpha, Buffer x, Buffer y, int n) {
        charge(KernelCost.axpy(n), y, x);
        physical.axpy(alpha, p(x), p(y), n);
    }

    @Override
    public void scale(float alpha, Buffer x, int n) {
        charge(KernelCost.scale(n), x);
        physical.scale(alpha, p(x), n);
    }

    @Override
    public void add(Buffer a, Buffer b, Buffer out, int n) {
        charge(KernelCost.add(n), out, a, b);
        physical.add(p(a), p(b), p(out), n);
    }

    @Override
    public void fill(float value, Buffer x, int n) {
        charge(KernelCost.fill(n), x);
        physical.fill(value, p(x), n);
    }

    @Override
    public void argmaxMatches(Buffer logits, Buffer labels, Buffer count, int batch, int classes) {
        charge(KernelCost.argmaxMatches(batch, classes), count, logits, labels);
        physical.argmaxMatches(p(logits), p(labels), p(count), batch, classes);
    }
}
