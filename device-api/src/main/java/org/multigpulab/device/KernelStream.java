package org.multigpulab.device;

import java.util.List;
import java.util.function.UnaryOperator;

/**
 * Calls to make in their order, as a GPU's stream makes them, with {@code map.apply(b)} in place of each buffer
 * {@code b} ({@code sim} gives its logical calls and the buffers underneath); each call's wall time goes to
 * {@code observer}, on the thread that launched the streams. See {@link Kernels#launchStreams}.
 */
public record KernelStream(List<KernelOp.Call> calls, UnaryOperator<Buffer> map, KernelObserver observer) {

    public KernelStream {
        calls = List.copyOf(calls);
    }

    /**
     * Makes the calls on {@code kernels}, one after another on the calling thread, and tells the observer of each
     * one as it returns, before the next is made (a backend may tie what it launched in a call to the call told).
     */
    public void launch(Kernels kernels) {
        for (KernelOp.Call call : calls) {
            observer.onKernel(call, timed(call, kernels));
        }
    }

    /**
     * Makes the calls on {@code kernels}, one after another on the calling thread, and returns each one's wall
     * nanoseconds without telling anyone: for a backend that runs streams at once and then {@link #tell}s.
     */
    public long[] run(Kernels kernels) {
        long[] nanos = new long[calls.size()];
        for (int i = 0; i < nanos.length; i++) {
            nanos[i] = timed(calls.get(i), kernels);
        }
        return nanos;
    }

    private long timed(KernelOp.Call call, Kernels kernels) {
        long start = System.nanoTime();
        kernels.launch(call.withBuffers(map));
        return System.nanoTime() - start;
    }

    /** Tells the observer each call's time, {@code nanos[i] · scale} for call {@code i}, in order. */
    public void tell(long[] nanos, double scale) {
        for (int i = 0; i < nanos.length; i++) {
            observer.onKernel(calls.get(i), Math.round(nanos[i] * scale));
        }
    }

    /** This stream with each call's time told to {@code also} after {@link #observer}. */
    KernelStream alsoTelling(KernelObserver also) {
        return new KernelStream(calls, map, (call, nanos) -> {
            observer.onKernel(call, nanos);
            also.onKernel(call, nanos);
        });
    }
}
