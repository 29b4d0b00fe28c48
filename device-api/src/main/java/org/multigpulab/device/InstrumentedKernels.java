package org.multigpulab.device;

import java.util.List;
import java.util.function.UnaryOperator;

/**
 * The gate in front of a backend's own kernels: checks that every buffer belongs to the device and is long
 * enough for the shape, times the call and tells an observer its FLOPs and bytes, for every op at once from its
 * {@link KernelOp} description.
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

    @Override
    public void launch(KernelOp.Call call) {
        check(call, UnaryOperator.identity());
        long start = System.nanoTime();
        raw.launch(call);
        observer.onKernel(call, System.nanoTime() - start);
    }

    /**
     * Checks every call of every stream first, so that a wrong buffer stops the launch before anything runs;
     * then hands the streams to the backend, each call's time told to the stream's observer and to this gate's.
     */
    @Override
    public void launchStreams(List<KernelStream> streams) {
        for (KernelStream stream : streams) {
            for (KernelOp.Call call : stream.calls()) {
                check(call, stream.map());
            }
        }
        raw.launchStreams(streams.stream().map(s -> s.alsoTelling(observer)).toList());
    }

    /** Checks each buffer of {@code call}, as {@code map} gives it, against the shape. */
    private void check(KernelOp.Call call, UnaryOperator<Buffer> map) {
        KernelOp op = call.op();
        for (int i = 0; i < op.args().size(); i++) {
            check(op, op.args().get(i).role(), map.apply(call.buffer(i)), call.needed(i));
        }
    }

    private void check(KernelOp op, String role, Buffer buffer, long needed) {
        if (buffer.device() != device) {
            throw new DeviceException(op.kernelName() + " on " + device.id() + " was given " + role + " that lives on "
                    + buffer.device().id() + "; copy it to " + device.id() + " first");
        }
        if (buffer.length() < needed) {
            throw new DeviceException(op.kernelName() + " on " + device.id() + ": " + role + " holds " + buffer.length()
                    + " floats but the shape needs " + needed);
        }
    }
}
