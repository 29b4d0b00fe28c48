package org.multigpulab.device;

import java.util.List;

/**
 * The operations a device runs: cuDNN-style forward and backward steps of the seed's LeNet plus a few
 * BLAS-1 helpers. All tensors are dense, row-major float32 in {@link Buffer}s of the device; a buffer may be
 * longer than the shape needs, and only its first elements are read or written. Outputs are overwritten
 * unless the method says it accumulates; an output never aliases an input.
 *
 * <p>Everything above this interface (autograd, the model, the optimizer, the collectives, the trainer) is
 * written once against it, so a new backend implements these methods and passes the conformance kit.
 * Work may run asynchronously until {@link Device#synchronize()} or a download. Each op is described once in
 * {@link KernelOp}: its name, the buffers it reads and writes, the elements each must hold, its cost.
 */
public interface Kernels {

    // Convolution (stride 1, no padding): forward and both backward passes side by side.

    /** {@code y[n,o,i,j] = Σ_{c,p,q} x[n,c,i+p,j+q] · w[o,c,p,q]}. */
    void conv2dForward(Buffer x, Buffer w, Buffer y, ConvShape s);

    /** {@code dx = ∂(Σ y·dy)/∂x}: the full correlation of {@code dy} with the flipped filter. */
    void conv2dBackwardData(Buffer dy, Buffer w, Buffer dx, ConvShape s);

    /** {@code dw = ∂(Σ y·dy)/∂w}: the correlation of {@code x} with {@code dy}, summed over the batch. */
    void conv2dBackwardFilter(Buffer x, Buffer dy, Buffer dw, ConvShape s);

    // Bias: also cuDNN's convolution backward-bias.

    /** {@code y[o,c,i] += b[c]} (in place). */
    void biasAdd(Buffer y, Buffer b, BiasShape s);

    /** {@code db[c] = Σ_{o,i} dy[o,c,i]}. */
    void biasAddBackward(Buffer dy, Buffer db, BiasShape s);

    // Average pooling.

    /** {@code y} = the mean of each window of {@code x}. */
    void avgPoolForward(Buffer x, Buffer y, PoolShape s);

    /** {@code dx} = each window's {@code dy} spread evenly over the window (zero where no window reaches). */
    void avgPoolBackward(Buffer dy, Buffer dx, PoolShape s);

    // ReLU.

    /** {@code y = max(x, 0)} over {@code n} elements. */
    void reluForward(Buffer x, Buffer y, int n);

    /** {@code dx = x > 0 ? dy : 0} over {@code n} elements. */
    void reluBackward(Buffer x, Buffer dy, Buffer dx, int n);

    // A convolution and its bias fused: F.conv2d(x, w, b) in one pass, the output written once where the two ops
    // write it and then read and write it again. It gives exactly what the two ops give one after the other.

    /** {@code y[n,o,i,j] = Σ_{c,p,q} x[n,c,i+p,j+q] · w[o,c,p,q] + b[o]}: {@link #conv2dForward} then {@link #biasAdd}. */
    void conv2dBiasForward(Buffer x, Buffer w, Buffer b, Buffer y, ConvShape s);

    // ReLU and average pooling fused: one pass over the activations where the two ops make two or three, and the
    // rectified activations are never stored. Each gives exactly what the two ops give one after the other.

    /** {@code y} = the mean of each window of {@code max(x, 0)}: {@link #reluForward} then {@link #avgPoolForward}. */
    void reluAvgPoolForward(Buffer x, Buffer y, PoolShape s);

    /**
     * {@code dx = x > 0 ? (each window's dy spread evenly over the window) : 0}: {@link #avgPoolBackward} then
     * {@link #reluBackward}, where {@code x} is what {@link #reluAvgPoolForward} read.
     */
    void reluAvgPoolBackward(Buffer x, Buffer dy, Buffer dx, PoolShape s);

    // A first convolution with its bias, ReLU and average pooling fused: the convolution's output is never
    // stored (13.8 MB a batch of 256 after LeNet's first layer, which the separate ops write once and read twice),
    // nor its gradient (as much again, written once and read twice). The backward step is for a convolution whose input
    // needs no gradient, a network's
    // first layer: it computes the convolution again where it needs it, rather than reading it back, and gives
    // the filter's and the bias's gradients. By default each is the separate ops one after the other, on buffers
    // of the device allocated for the call; a backend may do better.

    /**
     * {@code y} = the mean of each pooling window of {@code max(conv2d(x, w) + b, 0)}: {@link #conv2dBiasForward}
     * then {@link #reluAvgPoolForward}, which this gives exactly.
     */
    default void conv2dBiasReluAvgPoolForward(Buffer x, Buffer w, Buffer b, Buffer y, ConvPoolShape s) {
        try (Buffer conv = x.device().allocate(s.conv().outputLength())) {
            conv2dBiasForward(x, w, b, conv, s.conv());
            reluAvgPoolForward(conv, y, s.pool());
        }
    }

    /**
     * {@code dw} and {@code db}, the gradients of {@code Σ y·dy} for {@code y} of
     * {@link #conv2dBiasReluAvgPoolForward}: {@link #conv2dBiasForward}, {@link #reluAvgPoolBackward}, then
     * {@link #conv2dBackwardFilter} and {@link #biasAddBackward} of the convolution's gradient. A backend may sum
     * in another order than those ops do, within float32's rounding of the same sums.
     */
    default void conv2dBiasReluAvgPoolBackward(
            Buffer x, Buffer w, Buffer b, Buffer dy, Buffer dw, Buffer db, ConvPoolShape s) {
        int n = s.conv().outputLength();
        try (Buffer conv = x.device().allocate(n);
                Buffer dconv = x.device().allocate(n)) {
            conv2dBiasForward(x, w, b, conv, s.conv());
            reluAvgPoolBackward(conv, dy, dconv, s.pool());
            conv2dBackwardFilter(x, dconv, dw, s.conv());
            biasAddBackward(dconv, db, s.conv().bias());
        }
    }

    // Matrix multiply.

    /**
     * {@code c[m,n] = alpha · op(a) · op(b) + beta · c}, where {@code op(a)} is {@code a[m,k]} or, transposed,
     * {@code a[k,m]ᵀ}, and likewise {@code op(b)} is {@code b[k,n]} or {@code b[n,k]ᵀ}. With {@code beta == 0}
     * the old contents of {@code c} are not read.
     */
    void gemm(
            boolean transA, boolean transB, int m, int n, int k, float alpha, Buffer a, Buffer b, float beta, Buffer c);

    // Softmax cross-entropy, the loss of the seed (reduction "none").

    /** {@code loss[i] = −log softmax(logits[i,:])[labels[i]]}; labels are class indices stored as floats. */
    void softmaxCrossEntropyForward(Buffer logits, Buffer labels, Buffer loss, int batch, int classes);

    /**
     * {@code dlogits[i,:] = softmax(logits[i,:]) − onehot(labels[i])}: the gradient of the summed loss
     * {@code Σ_i loss[i]}.
     */
    void softmaxCrossEntropyBackward(Buffer logits, Buffer labels, Buffer dlogits, int batch, int classes);

    // BLAS-1 helpers.

    /** {@code y += alpha · x} over {@code n} elements (accumulates into {@code y}). */
    void axpy(float alpha, Buffer x, Buffer y, int n);

    /** {@code x *= alpha} over {@code n} elements, in place. */
    void scale(float alpha, Buffer x, int n);

    /** {@code out = a + b} over {@code n} elements; {@code out} may be {@code a} or {@code b}. */
    void add(Buffer a, Buffer b, Buffer out, int n);

    /** {@code x = value} over {@code n} elements. */
    void fill(float value, Buffer x, int n);

    // Metrics.

    /**
     * {@code count[0]} = how many rows of {@code logits} have their largest value at the index given by
     * {@code labels} (the first maximum wins a tie, as in {@code torch.argmax}).
     */
    void argmaxMatches(Buffer logits, Buffer labels, Buffer count, int batch, int classes);

    // Several streams at once.

    /**
     * Makes the calls of each stream in the stream's order. No buffer one stream writes is read or written by
     * another, so a backend may run the streams at the same time ({@code cpu} spreads them over its cores, each
     * on one thread); every call gives the bits it gives alone. By default the streams run one after another.
     * Each call's time is told to its stream's observer on the calling thread; where streams ran at once, it is
     * the call's share of the wall time they took together (its own time, scaled so that all calls add up to
     * that wall time), so that the seconds of all streams add up to the device's, as they do one after another.
     */
    default void launchStreams(List<KernelStream> streams) {
        for (KernelStream stream : streams) {
            stream.launch(this);
        }
    }
}
