package org.multigpulab.core.train;

import java.util.ArrayList;
import java.util.List;
import org.multigpulab.core.autograd.Tensor;
import org.multigpulab.core.model.HostTensor;
import org.multigpulab.core.parallel.FlatShards;
import org.multigpulab.core.parallel.GradientBuckets;
import org.multigpulab.core.parallel.Replica;
import org.multigpulab.device.Buffer;

/**
 * The parameters of ZeRO stage 3, as PyTorch's FSDP keeps them: each device holds its chunk of the flattened
 * parameters; the model is cut into units (contiguous ranges of parameters of at most a given size, FSDP's
 * size-based wrapping), and a pass that reads a parameter of a unit the device does not hold gathers the whole unit
 * onto it, and the next unit in the pass's order too (FSDP's prefetch). A device holds at most those two: the
 * others are freed. A pass runs forward (the units of the first parameters first) or backward. With several
 * processes every unit crosses between them through the host when a pass starts, in the pass's order, for all of a
 * process's devices, which then take each from there as they reach it: so every process makes the same collective
 * calls whatever rows it got, even none. Not thread-safe.
 */
final class ShardedParameters implements AutoCloseable {

    private final List<Replica> replicas;
    private final FlatShards shards;
    private final List<GradientBuckets.Bucket> units;
    private final int[] unitOf;
    /** Per device, per unit: its gathered parameters while held, else null. */
    private final Buffer[][] held;
    /** Per device: its chunk of the parameters. */
    private final List<Buffer> own = new ArrayList<>();
    /** With several processes: per unit, what crossed between them for this pass; null in one process. */
    private final float[][] crossed;

    private boolean forward = true;
    private String pass = "forward";

    /** Units of at most {@code unitBytes} of {@code replicas}' parameters, each device's chunk from {@code start}. */
    ShardedParameters(List<Replica> replicas, FlatShards shards, long unitBytes, List<HostTensor> start) {
        this.replicas = replicas;
        this.shards = shards;
        this.units = GradientBuckets.plan(replicas.getFirst(), unitBytes);
        int params = replicas.getFirst().params().size();
        this.unitOf = new int[params];
        units.forEach(u -> u.params().forEach(p -> unitOf[p] = u.index()));
        this.held = new Buffer[replicas.size()][units.size()];
        this.crossed = new float[units.size()][];
        Replica first = replicas.getFirst();
        float[] flat = new float[first.length()];
        for (int p = 0; p < params; p++) {
            System.arraycopy(
                    start.get(p).values(),
                    0,
                    flat,
                    first.offset(p),
                    start.get(p).size());
        }
        for (int d = 0; d < replicas.size(); d++) {
            Replica r = replicas.get(d);
            Buffer mine = r.device().allocate(shards.length(d));
            r.device().upload(flat, shards.offset(d), mine);
            own.add(mine);
            for (int p = 0; p < params; p++) {
                onDemand(d, p);
            }
        }
    }

    /** Device {@code d}'s chunk of the parameters, which the optimizer updates. */
    Buffer own(int d) {
        return own.get(d);
    }

    /** The units of this pass: the forward pass's (first parameters first) or the backward pass's. */
    void startPass(boolean forwardPass) {
        this.forward = forwardPass;
        this.pass = forwardPass ? "forward" : "backward";
        for (int i = 0; i < units.size(); i++) {
            int u = forwardPass ? units.size() - 1 - i : i;
            GradientBuckets.Bucket unit = units.get(u);
            crossed[u] = shards.gatherAcrossProcesses(unit.offset(), unit.length(), own);
        }
    }

    private void onDemand(int d, int p) {
        Tensor t = replicas.get(d).params().get(p);
        t.releaseData(() -> {
            int u = unitOf[p];
            hold(d, u);
            // the units a forward pass reaches next hold lower indices: they are laid out last parameter first
            int next = forward ? u - 1 : u + 1;
            if (next >= 0 && next < units.size()) {
                hold(d, next);
            }
            for (int other = 0; other < units.size(); other++) {
                if (other != u && other != next) {
                    free(d, other);
                }
            }
            return t.data();
        });
    }

    /** Unit {@code u} gathered onto device {@code d}, unless it holds it. */
    private void hold(int d, int u) {
        if (held[d][u] != null) {
            return;
        }
        GradientBuckets.Bucket unit = units.get(u);
        Replica r = replicas.get(d);
        Buffer all = r.device().allocate(unit.length());
        shards.gather(d, all, unit.offset(), own, crossed[u], pass);
        held[d][u] = all;
        for (int p : unit.params()) {
            r.params()
                    .get(p)
                    .bindData(all.slice(
                            r.offset(p) - unit.offset(), r.params().get(p).size()));
        }
    }

    private void free(int d, int u) {
        if (held[d][u] == null) {
            return;
        }
        held[d][u].close();
        held[d][u] = null;
        units.get(u).params().forEach(p -> onDemand(d, p));
    }

    /** Every device's gathered units freed: after a pass. */
    void freeAll() {
        for (int d = 0; d < replicas.size(); d++) {
            for (int u = 0; u < units.size(); u++) {
                free(d, u);
            }
        }
    }

    @Override
    public void close() {
        freeAll();
        own.forEach(Buffer::close);
    }
}
