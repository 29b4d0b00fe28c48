package org.multigpulab.backend.sim;

import org.multigpulab.device.BiasShape;
import org.multigpulab.device.Buffer;
import org.multigpulab.device.ConvShape;
import org.multigpulab.device.Kernels;
import org.multigpulab.device.PoolShape;

/**
 * A logical GPU's kernels: each call runs on the physical device with the buffers underneath. The
 * {@code InstrumentedKernels} in front has already checked that every buffer belongs to this logical GPU.
 */
final class SimKernels implements Kernels {

    private final Kernels physical;

    SimKernels(Kernels physical) {
        this.physical = physical;
    }

    private static Buffer p(Buffer b) {
        return ((SimBuffer) b).physical;
    }

    @Override
    public void conv2dForward(Buffer x, Buffer w, Buffer y, ConvShape s) {
        physical.conv2dForward(p(x), p(w), p(y), s);
    }

    @Override
    public void conv2dBackwardData(Buffer dy, Buffer w, Buffer dx, ConvShape s) {
        physical.conv2dBackwardData(p(dy), p(w), p(dx), s);
    }

    @Override
    public void conv2dBackwardFilter(Buffer x, Buffer dy, Buffer dw, ConvShape s) {
        physical.conv2dBackwardFilter(p(x), p(dy), p(dw), s);
    }

    @Override
    public void biasAdd(Buffer y, Buffer b, BiasShape s) {
        physical.biasAdd(p(y), p(b), s);
    }

    @Override
    public void biasAddBackward(Buffer dy, Buffer db, BiasShape s) {
        physical.biasAddBackward(p(dy), p(db), s);
    }

    @Override
    public void avgPoolForward(Buffer x, Buffer y, PoolShape s) {
        physical.avgPoolForward(p(x), p(y), s);
    }

    @Override
    public void avgPoolBackward(Buffer dy, Buffer dx, PoolShape s) {
        physical.avgPoolBackward(p(dy), p(dx), s);
    }

    @Override
    public void reluForward(Buffer x, Buffer y, int n) {
        physical.reluForward(p(x), p(y), n);
    }

    @Override
    public void reluBackward(Buffer x, Buffer dy, Buffer dx, int n) {
        physical.reluBackward(p(x), p(dy), p(dx), n);
    }

    @Override
    public void gemm(boolean transA, boolean transB, int m, int n, int k,
                     float alpha, Buffer a, Buffer b, float beta, Buffer c) {
        physical.gemm(transA, transB, m, n, k, alpha, p(a), p(b), beta, p(c));
    }

    @Override
    public void softmaxCrossEntropyForward(Buffer logits, Buffer labels, Buffer loss, int batch, int classes) {
        physical.softmaxCrossEntropyForward(p(logits), p(labels), p(loss), batch, classes);
    }

    @Override
    public void softmaxCrossEntropyBackward(Buffer logits, Buffer labels, Buffer dlogits, int batch, int classes) {
        physical.softmaxCrossEntropyBackward(p(logits), p(labels), p(dlogits), batch, classes);
    }

    @Override
    public void axpy(float alpha, Buffer x, Buffer y, int n) {
        physical.axpy(alpha, p(x), p(y), n);
    }

    @Override
    public void scale(float alpha, Buffer x, int n) {
        physical.scale(alpha, p(x), n);
    }

    @Override
    public void add(Buffer a, Buffer b, Buffer out, int n) {
        physical.add(p(a), p(b), p(out), n);
    }

    @Override
    public void fill(float value, Buffer x, int n) {
        physical.fill(value, p(x), n);
    }

    @Override
    public void argmaxMatches(Buffer logits, Buffer labels, Buffer count, int batch, int classes) {
        physical.argmaxMatches(p(logits), p(labels), p(count), batch, classes);
    }
}
