package org.multigpulab.device;

import java.util.List;

/**
 * The operations a device runs: cuDNN-style forward and backward steps of a CNN plus a few BLAS-1 helpers, each a
 * record of {@link KernelOp.Call} that says what it computes, what it reads and writes, and what it costs.
 *
 * <p>Everything above this interface (autograd, the model, the optimizer, the collectives, the trainer) is
 * written once against it, so a new backend implements {@link #launch} as one exhaustive {@code switch} over the
 * ops and passes the conformance kit. Work may run asynchronously until {@link Device#synchronize()} or a download.
 */
public interface Kernels {

    /** Makes {@code call} on this device. */
    void launch(KernelOp.Call call);

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
