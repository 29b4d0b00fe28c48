package org.multigpulab.device;

/**
 * The work of one kernel launch: floating-point operations and the bytes it must read and write at least.
 * Every backend reports the same figures for the same call, because they are computed here from the shapes
 * and not measured; a cost model turns them into time. Immutable.
 */
public record KernelCost(String kernel, long flops, long bytes) {

    private static final long F = Float.BYTES;

    public static KernelCost conv2dForward(ConvShape s) {
        return new KernelCost("conv2d_forward", s.flops(), F * (s.inputLength() + s.filterLength() + s.outputLength()));
    }

    public static KernelCost conv2dBackwardData(ConvShape s) {
        return new KernelCost("conv2d_backward_data", s.flops(), F * (s.outputLength() + s.filterLength() + s.inputLength()));
    }

    public static KernelCost conv2dBackwardFilter(ConvShape s) {
        return new KernelCost("conv2d_backward_filter", s.flops(), F * (s.inputLength() + s.outputLength() + s.filterLength()));
    }

    public static KernelCost biasAdd(BiasShape s) {
        return new KernelCost("bias_add", s.length(), F * (2L * s.length() + s.channels()));
    }

    public static KernelCost biasAddBackward(BiasShape s) {
        return new KernelCost("bias_add_backward", s.length(), F * (s.length() + (long) s.channels()));
    }

    public static KernelCost avgPoolForward(PoolShape s) {
        return new KernelCost("avg_pool_forward", (long) s.outputLength() * s.window() * s.window(),
                F * (s.inputLength() + (long) s.outputLength()));
    }

    public static KernelCost avgPoolBackward(PoolShape s) {
        return new KernelCost("avg_pool_backward", (long) s.outputLength() * s.window() * s.window(),
                F * (s.inputLength() + (long) s.outputLength()));
    }

    public static KernelCost reluForward(int n) {
        return new KernelCost("relu_forward", n, F * 2 * n);
    }

    public static KernelCost reluBackward(int n) {
        return new KernelCost("relu_backward", n, F * 3 * n);
    }

    public static KernelCost gemm(int m, int n, int k, float beta) {
        long c = (long) m * n;
        return new KernelCost("gemm", 2L * m * n * k, F * ((long) m * k + (long) k * n + (beta == 0 ? c : 2 * c)));
    }

    public static KernelCost softmaxCrossEntropyForward(int batch, int classes) {
        long logits = (long) batch * classes;
        return new KernelCost("softmax_xent_forward", 4 * logits, F * (logits + 2L * batch));
    }

    public static KernelCost softmaxCrossEntropyBackward(int batch, int classes) {
        long logits = (long) batch * classes;
        return new KernelCost("softmax_xent_backward", 4 * logits, F * (2 * logits + batch));
    }

    public static KernelCost axpy(int n) {
        return new KernelCost("axpy", 2L * n, F * 3 * n);
    }

    public static KernelCost scale(int n) {
        return new KernelCost("scale", n, F * 2 * n);
    }

    public static KernelCost add(int n) {
        return new KernelCost("add", n, F * 3 * n);
    }

    public static KernelCost fill(int n) {
        return new KernelCost("fill", 0, F * n);
    }

    public static KernelCost argmaxMatches(int batch, int classes) {
        long logits = (long) batch * classes;
        return new KernelCost("argmax_matches", logits, F * (logits + batch + 1));
    }
}
