package org.multigpulab.device;

/**
 * The gate in front of a backend's own kernels: checks that every buffer belongs to the device and is long
 * enough for the shape, computes each launch's {@link KernelCost}, times the call and tells an observer.
 *
 * <p>Backends wrap their kernels in it, so the checks and the counting are written once and a backend's own
 * kernels may trust their arguments. Not thread-safe, like the device it serves.
 */
public final class InstrumentedKernels implements Kernels {

    private final Device device;
    private final Kernels raw;
    private final KernelObserver observer;

    public InstrumentedKernels(Device device, Kernels raw, KernelObserver observer) {
        this.device = device;
        this.raw = raw;
        this.observer = observer;
    }

    private void check(String kernel, String role, Buffer buffer, long needed) {
        if (buffer.device() != device) {
            throw new DeviceException(kernel + " on " + device.id() + " was given " + role + " that lives on "
                    + buffer.device().id() + "; copy it to " + device.id() + " first");
        }
        if (buffer.length() < needed) {
            throw new DeviceException(kernel + " on " + device.id() + ": " + role + " holds " + buffer.length()
                    + " floats but the shape needs " + needed);
        }
    }

    private void checkCount(String kernel, int n) {
        if (n < 0) {
            throw new DeviceException(kernel + ": element count must not be negative, got " + n);
        }
    }

    private void run(KernelCost cost, Runnable launch) {
        long start = System.nanoTime();
        launch.run();
        observer.onKernel(cost, System.nanoTime() - start);
    }

    @Override
    public void conv2dForward(Buffer x, Buffer w, Buffer y, ConvShape s) {
        check("conv2d_forward", "x", x, s.inputLength());
        check("conv2d_forward", "w", w, s.filterLength());
        check("conv2d_forward", "y", y, s.outputLength());
        run(KernelCost.conv2dForward(s), () -> raw.conv2dForward(x, w, y, s));
    }

    @Override
    public void conv2dBackwardData(Buffer dy, Buffer w, Buffer dx, ConvShape s) {
        check("conv2d_backward_data", "dy", dy, s.outputLength());
        check("conv2d_backward_data", "w", w, s.filterLength());
        check("conv2d_backward_data", "dx", dx, s.inputLength());
        run(KernelCost.conv2dBackwardData(s), () -> raw.conv2dBackwardData(dy, w, dx, s));
    }

    @Override
    public void conv2dBackwardFilter(Buffer x, Buffer dy, Buffer dw, ConvShape s) {
        check("conv2d_backward_filter", "x", x, s.inputLength());
        check("conv2d_backward_filter", "dy", dy, s.outputLength());
        check("conv2d_backward_filter", "dw", dw, s.filterLength());
        run(KernelCost.conv2dBackwardFilter(s), () -> raw.conv2dBackwardFilter(x, dy, dw, s));
    }

    @Override
    public void biasAdd(Buffer y, Buffer b, BiasShape s) {
        check("bias_add", "y", y, s.length());
        check("bias_add", "b", b, s.channels());
        run(KernelCost.biasAdd(s), () -> raw.biasAdd(y, b, s));
    }

    @Override
    public void biasAddBackward(Buffer dy, Buffer db, BiasShape s) {
        check("bias_add_backward", "dy", dy, s.length());
        check("bias_add_backward", "db", db, s.channels());
        run(KernelCost.biasAddBackward(s), () -> raw.biasAddBackward(dy, db, s));
    }

    @Override
    public void avgPoolForward(Buffer x, Buffer y, PoolShape s) {
        check("avg_pool_forward", "x", x, s.inputLength());
        check("avg_pool_forward", "y", y, s.outputLength());
        run(KernelCost.avgPoolForward(s), () -> raw.avgPoolForward(x, y, s));
    }

    @Override
    public void avgPoolBackward(Buffer dy, Buffer dx, PoolShape s) {
        check("avg_pool_backward", "dy", dy, s.outputLength());
        check("avg_pool_backward", "dx", dx, s.inputLength());
        run(KernelCost.avgPoolBackward(s), () -> raw.avgPoolBackward(dy, dx, s));
    }

    @Override
    public void reluForward(Buffer x, Buffer y, int n) {
        checkCount("relu_forward", n);
        check("relu_forward", "x", x, n);
        check("relu_forward", "y", y, n);
        run(KernelCost.reluForward(n), () -> raw.reluForward(x, y, n));
    }

    @Override
    public void reluBackward(Buffer x, Buffer dy, Buffer dx, int n) {
        checkCount("relu_backward", n);
        check("relu_backward", "x", x, n);
        check("relu_backward", "dy", dy, n);
        check("relu_backward", "dx", dx, n);
        run(KernelCost.reluBackward(n), () -> raw.reluBackward(x, dy, dx, n));
    }

    @Override
    public void gemm(boolean transA, boolean transB, int m, int n, int k,
                     float alpha, Buffer a, Buffer b, float beta, Buffer c) {
        if (m <= 0 || n <= 0 || k <= 0) {
            throw new DeviceException("gemm: m, n and k must be positive, got " + m + ", " + n + ", " + k);
        }
        check("gemm", "a", a, (long) m * k);
        check("gemm", "b", b, (long) k * n);
        check("gemm", "c", c, (long) m * n);
        run(KernelCost.gemm(m, n, k, beta), () -> raw.gemm(transA, transB, m, n, k, alpha, a, b, beta, c));
    }

    @Override
    public void softmaxCrossEntropyForward(Buffer logits, Buffer labels, Buffer loss, int batch, int classes) {
        check("softmax_xent_forward", "logits", logits, (long) batch * classes);
        check("softmax_xent_forward", "labels", labels, batch);
        check("softmax_xent_forward", "loss", loss, batch);
        run(KernelCost.softmaxCrossEntropyForward(batch, classes),
                () -> raw.softmaxCrossEntropyForward(logits, labels, loss, batch, classes));
    }

    @Override
    public void softmaxCrossEntropyBackward(Buffer logits, Buffer labels, Buffer dlogits, int batch, int classes) {
        check("softmax_xent_backward", "logits", logits, (long) batch * classes);
        check("softmax_xent_backward", "labels", labels, batch);
        check("softmax_xent_backward", "dlogits", dlogits, (long) batch * classes);
        run(KernelCost.softmaxCrossEntropyBackward(batch, classes),
                () -> raw.softmaxCrossEntropyBackward(logits, labels, dlogits, batch, classes));
    }

    @Override
    public void axpy(float alpha, Buffer x, Buffer y, int n) {
        checkCount("axpy", n);
        check("axpy", "x", x, n);
        check("axpy", "y", y, n);
        run(KernelCost.axpy(n), () -> raw.axpy(alpha, x, y, n));
    }

    @Override
    public void scale(float alpha, Buffer x, int n) {
        checkCount("scale", n);
        check("scale", "x", x, n);
        run(KernelCost.scale(n), () -> raw.scale(alpha, x, n));
    }

    @Override
    public void add(Buffer a, Buffer b, Buffer out, int n) {
        checkCount("add", n);
        check("add", "a", a, n);
        check("add", "b", b, n);
        check("add", "out", out, n);
        run(KernelCost.add(n), () -> raw.add(a, b, out, n));
    }

    @Override
    public void fill(float value, Buffer x, int n) {
        checkCount("fill", n);
        check("fill", "x", x, n);
        run(KernelCost.fill(n), () -> raw.fill(value, x, n));
    }

    @Override
    public void argmaxMatches(Buffer logits, Buffer labels, Buffer count, int batch, int classes) {
        check("argmax_matches", "logits", logits, (long) batch * classes);
        check("argmax_matches", "labels", labels, batch);
        check("argmax_matches", "count", count, 1);
        run(KernelCost.argmaxMatches(batch, classes),
                () -> raw.argmaxMatches(logits, labels, count, batch, classes));
    }
}
