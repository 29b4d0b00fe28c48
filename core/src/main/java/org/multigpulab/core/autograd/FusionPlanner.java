package org.multigpulab.core.autograd;

import java.util.IdentityHashMap;
import java.util.Map;
import org.multigpulab.device.ConvPoolShape;
import org.multigpulab.device.ConvShape;
import org.multigpulab.device.KernelOp.Conv2dBiasForward;
import org.multigpulab.device.KernelOp.Conv2dForward;
import org.multigpulab.device.KernelOp.ReluForward;
import org.multigpulab.device.Kernels;

/**
 * Decides, from the ops recorded on one {@link Tape}, which fused kernel runs. A convolution's and a ReLU's outputs
 * are not written when the op is recorded but when something first reads them ({@link #write}); an average pooling
 * asks {@link #poolingOf} whether what it pools is such a ReLU, and of such a convolution, and then does the two or
 * three in one kernel that never stores what it skipped. Any other op between them reads its input, which writes
 * it, so the separate kernels run, with the same numbers. The inputs of a deferred op are read when it is written,
 * which is the same as when it was recorded: no op changes a tensor it has returned, and the forward pass comes
 * before any change of the parameters. Not thread-safe, like its tape.
 */
final class FusionPlanner {

    /** An op whose output is not yet written. */
    private sealed interface Deferred {}

    /** {@code F.conv2d(x, w, b)} of shape {@code s}. */
    record Convolution(Tensor x, Tensor w, Tensor b, ConvShape s) implements Deferred {}

    /** {@code F.relu(x)}. */
    private record Relu(Tensor x) implements Deferred {}

    /** What a pooling reads: the ReLU of a convolution, a ReLU, or a tensor already written. */
    sealed interface Pooling {
        /** Pool {@code max(conv2d(x, w) + b, 0)} in one kernel, for a convolution whose input needs no gradient. */
        record OfConvolutionRelu(Convolution conv, ConvPoolShape s) implements Pooling {}

        /** Pool {@code max(x, 0)} in one kernel. */
        record OfRelu(Tensor x) implements Pooling {}

        /** Pool the tensor itself. */
        record Plain() implements Pooling {}
    }

    private final Kernels kernels;
    private final Map<Tensor, Deferred> deferred = new IdentityHashMap<>();

    FusionPlanner(Kernels kernels) {
        this.kernels = kernels;
    }

    void deferConvolution(Tensor y, Convolution conv) {
        deferred.put(y, conv);
    }

    void deferRelu(Tensor y, Tensor x) {
        deferred.put(y, new Relu(x));
    }

    /**
     * How a pooling of window {@code window} and stride {@code stride} reads {@code x}. A deferred ReLU, and its
     * deferred convolution, that the pooling takes over stay deferred: they are written only if something reads
     * them later (a layer's observer, say), which the forward pass itself never does.
     */
    Pooling poolingOf(Tensor x, int window, int stride) {
        if (!(deferred.get(x.root()) instanceof Relu(Tensor input))) {
            return new Pooling.Plain();
        }
        if (deferred.get(input.root()) instanceof Convolution c && !c.x().requiresGrad() && c.b() != null) {
            return new Pooling.OfConvolutionRelu(c, new ConvPoolShape(c.s(), window, stride));
        }
        return new Pooling.OfRelu(input);
    }

    /** Writes {@code t}'s data if an op deferred it, its own inputs first; afterwards {@code t.data()} holds its value. */
    void write(Tensor t) {
        Deferred op = deferred.remove(t.root());
        switch (op) {
            case null -> {}
            case Relu(Tensor x) -> {
                write(x);
                kernels.launch(new ReluForward(x.data(), t.data(), t.size()));
            }
            case Convolution(Tensor x, Tensor w, Tensor b, ConvShape s) -> {
                write(x);
                kernels.launch(
                        b == null
                                ? new Conv2dForward(x.data(), w.data(), t.data(), s)
                                : new Conv2dBiasForward(x.data(), w.data(), b.data(), t.data(), s));
            }
        }
    }
}
