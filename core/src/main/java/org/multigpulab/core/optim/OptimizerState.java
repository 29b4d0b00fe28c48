package org.multigpulab.core.optim;

import java.util.ArrayList;
import java.util.List;
import org.multigpulab.core.parallel.Replica;
import org.multigpulab.device.Buffer;
import org.multigpulab.device.KernelOp.Fill;

/**
 * What an {@link Optimizer} keeps for one replica: per parameter its state tensors on the replica's device (zeros at
 * the start), and how many steps it took. Closing it frees them. Not thread-safe.
 */
public final class OptimizerState implements AutoCloseable {

    private final List<List<Buffer>> tensors = new ArrayList<>();
    private int steps;

    /** Zeros for {@code optimizer}'s state of every parameter of {@code replica}. */
    public OptimizerState(Optimizer optimizer, Replica replica) {
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

    @Override
    public void close() {
        tensors.forEach(own -> own.forEach(Buffer::close));
        tensors.clear();
    }
}
