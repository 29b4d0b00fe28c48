package org.multigpulab.core.optim;

import java.util.ArrayList;
import java.util.List;
import org.multigpulab.core.model.HostTensor;
import org.multigpulab.core.parallel.Replica;
import org.multigpulab.device.Buffer;
import org.multigpulab.device.KernelOp.Fill;

/**
 * What an {@link Optimizer} keeps for one replica: per parameter its state tensors on the replica's device (zeros at
 * the start), and how many steps it took. On the host, as checkpoints hold it, it is one tensor per parameter and
 * kind, {@code optimizer.W1.exp_avg}, then the step count {@code optimizer.step} (int64), none for plain SGD. Closing
 * it frees the device's. Not thread-safe.
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

    private final Optimizer optimizer;
    private final Replica replica;
    private final List<List<Buffer>> tensors = new ArrayList<>();
    private int steps;

    /** Zeros for {@code optimizer}'s state of every parameter of {@code replica}. */
    public OptimizerState(Optimizer optimizer, Replica replica) {
        this.optimizer = optimizer;
        this.replica = replica;
        for (var p : replica.params()) {
            List<Buffer> own = new ArrayList<>();
            for (int i = 0; i < optimizer.stateTensors(); i++) {
                Buffer b = replica.device().allocate(p.size());
                replica.device().kernels().launch(new Fill(0f, b, p.size()));
                own.add(b);
            }
            tensors.add(own);
        }
    }

    /** State tensor {@code i} of parameter {@code parameter}. */
    Buffer tensor(int parameter, int i) {
        return tensors.get(parameter).get(i);
    }

    /** The steps taken so far. */
    public int steps() {
        return steps;
    }

    void stepped() {
        steps++;
    }

    /** The names of the state on the host, in the order of {@link #download}. */
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

    /** The state, copied to the host under {@link #names}. */
    public List<HostTensor> download() {
        List<String> names = names(optimizer, replica.names());
        List<HostTensor> out = new ArrayList<>();
        int n = 0;
        for (int p = 0; p < tensors.size(); p++) {
            for (Buffer b : tensors.get(p)) {
                out.add(new HostTensor(
                        names.get(n++),
                        replica.params().get(p).shape(),
                        replica.device().download(b),
                        false));
            }
        }
        if (!names.isEmpty()) {
            out.add(new HostTensor(STEP, new int[0], new float[] {steps}, true));
        }
        return List.copyOf(out);
    }

    /** Takes {@code state}, as {@link #download} gives it (names and shapes checked by the caller), onto the device. */
    public void upload(List<HostTensor> state) {
        int n = 0;
        for (List<Buffer> own : tensors) {
            for (Buffer b : own) {
                replica.device().upload(state.get(n++).values(), 0, b);
            }
        }
        steps = state.isEmpty() ? 0 : Math.round(state.getLast().values()[0]);
    }

    @Override
    public void close() {
        tensors.forEach(own -> own.forEach(Buffer::close));
        tensors.clear();
    }
}
