package org.multigpulab.core.optim;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.multigpulab.core.autograd.Tensor;
import org.multigpulab.core.model.HostTensor;
import org.multigpulab.core.parallel.Replica;
import org.multigpulab.device.Buffer;
import org.multigpulab.device.Device;
import org.multigpulab.device.KernelOp.Fill;

/**
 * What an {@link Optimizer} keeps on one device and what it updates there: a range of the model's flattened
 * parameters (all of them, or the device's chunk under ZeRO), cut into {@link Piece}s at the parameters' bounds,
 * each with its values, its summed gradient and the optimizer's state tensors for it (zeros at the start); and how
 * many steps it took. On the host, as checkpoints hold it, it is one tensor per parameter and kind,
 * {@code optimizer.W1.exp_avg}, then the step count {@code optimizer.step} (int64), none for plain SGD. Closing it
 * frees the device's. Not thread-safe.
 */
public final class OptimizerState implements AutoCloseable {

    /** What the names of the optimizer's state on the host begin with, beside a model's state. */
    private static final String PREFIX = "optimizer.";

    /** The name of the step count on the host. */
    public static final String STEP = PREFIX + "step";

    /** Whether {@code t}, of a checkpoint, is the optimizer's state rather than the model's. */
    public static boolean holds(HostTensor t) {
        return t.name().startsWith(PREFIX);
    }

    /**
     * Parameter {@code parameter}'s values from {@code flatOffset} of the flattened parameters ({@link Replica#values})
     * on, {@code length} of them: their {@code data}, their summed gradient {@code grad}, and the optimizer's
     * {@code tensors} for them.
     */
    public record Piece(int parameter, int flatOffset, int length, Buffer data, Buffer grad, List<Buffer> tensors) {}

    private final Optimizer optimizer;
    private final Device device;
    private final List<Piece> pieces = new ArrayList<>();
    private int steps;

    /** Zeros for {@code optimizer}'s state of every parameter of {@code replica}, which it updates in place. */
    public OptimizerState(Optimizer optimizer, Replica replica) {
        this(optimizer, replica, 0, replica.length(), replica.values(), replica.gradients());
    }

    /**
     * Zeros for {@code optimizer}'s state of the flattened parameters {@code [from, from + length)} of
     * {@code replica}'s model, whose values are {@code data} and summed gradients {@code grad}, both buffers of
     * {@code length} on the replica's device; the pieces in parameter order.
     */
    public OptimizerState(Optimizer optimizer, Replica replica, int from, int length, Buffer data, Buffer grad) {
        this.optimizer = optimizer;
        this.device = replica.device();
        for (int p = 0; p < replica.params().size(); p++) {
            int start = Math.max(from, replica.offset(p));
            int end = Math.min(
                    from + length, replica.offset(p) + replica.params().get(p).size());
            if (start >= end) {
                continue;
            }
            List<Buffer> own = new ArrayList<>();
            for (int i = 0; i < optimizer.stateTensors(); i++) {
                Buffer b = device.allocate(end - start);
                device.kernels().launch(new Fill(0f, b, end - start));
                own.add(b);
            }
            pieces.add(new Piece(
                    p,
                    start,
                    end - start,
                    data.slice(start - from, end - start),
                    grad.slice(start - from, end - start),
                    List.copyOf(own)));
        }
    }

    /** The device it lives on. */
    public Device device() {
        return device;
    }

    /** What it updates, in parameter order. */
    public List<Piece> pieces() {
        return pieces;
    }

    /** The steps taken so far. */
    public int steps() {
        return steps;
    }

    void stepped() {
        steps++;
    }

    /** The bytes of its state tensors on the device. */
    public long bytes() {
        return (long) Float.BYTES
                * optimizer.stateTensors()
                * pieces.stream().mapToLong(Piece::length).sum();
    }

    /** The names of the state on the host, in the order of {@link #toHost}. */
    public static List<String> names(Optimizer optimizer, List<String> parameters) {
        if (optimizer.stateTensors() == 0) {
            return List.of();
        }
        List<String> names = new ArrayList<>();
        for (String p : parameters) {
            optimizer.stateNames().forEach(kind -> names.add(PREFIX + p + "." + kind));
        }
        names.add(STEP);
        return List.copyOf(names);
    }

    /** Per kind of state, an array as long as the flattened parameters, to gather pieces into. */
    public static List<float[]> flatArrays(Optimizer optimizer, int length) {
        List<float[]> flat = new ArrayList<>();
        for (int i = 0; i < optimizer.stateTensors(); i++) {
            flat.add(new float[length]);
        }
        return flat;
    }

    /** Copies this state's pieces into {@code flat} ({@link #flatArrays}), each where its values lie. */
    public void downloadInto(List<float[]> flat) {
        for (Piece piece : pieces) {
            for (int i = 0; i < piece.tensors().size(); i++) {
                device.download(piece.tensors().get(i), flat.get(i), piece.flatOffset());
            }
        }
    }

    /** Takes this state's pieces from {@code flat} ({@link #flatArrays}), and the step count. */
    public void uploadFrom(List<float[]> flat, int steps) {
        for (Piece piece : pieces) {
            for (int i = 0; i < piece.tensors().size(); i++) {
                device.upload(flat.get(i), piece.flatOffset(), piece.tensors().get(i));
            }
        }
        this.steps = steps;
    }

    /** The whole state, gathered into {@code flat}, as the host keeps it: per parameter and kind, then the step. */
    public static List<HostTensor> toHost(Optimizer optimizer, Replica replica, List<float[]> flat, int steps) {
        List<String> names = names(optimizer, replica.names());
        List<HostTensor> out = new ArrayList<>();
        int n = 0;
        for (int p = 0; p < replica.params().size(); p++) {
            Tensor t = replica.params().get(p);
            for (float[] kind : flat) {
                out.add(new HostTensor(
                        names.get(n++),
                        t.shape(),
                        Arrays.copyOfRange(kind, replica.offset(p), replica.offset(p) + t.size()),
                        false));
            }
        }
        if (!names.isEmpty()) {
            out.add(new HostTensor(STEP, new int[0], new float[] {steps}, true));
        }
        return List.copyOf(out);
    }

    /** {@code state}, as {@link #toHost} gives it (names checked by the caller), back in {@link #flatArrays}. */
    public static List<float[]> fromHost(Optimizer optimizer, Replica replica, List<HostTensor> state) {
        List<float[]> flat = flatArrays(optimizer, replica.length());
        int n = 0;
        for (int p = 0; p < replica.params().size(); p++) {
            for (float[] kind : flat) {
                float[] values = state.get(n++).values();
                System.arraycopy(values, 0, kind, replica.offset(p), values.length);
            }
        }
        return flat;
    }

    /** The step count that {@code state}, as {@link #toHost} gives it, holds: 0 for none. */
    public static int steps(List<HostTensor> state) {
        return state.isEmpty() ? 0 : Math.round(state.getLast().values()[0]);
    }

    @Override
    public void close() {
        pieces.forEach(piece -> piece.tensors().forEach(Buffer::close));
        pieces.clear();
    }
}
