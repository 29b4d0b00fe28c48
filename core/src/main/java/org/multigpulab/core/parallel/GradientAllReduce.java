package org.multigpulab.core.parallel;

import java.util.List;
import org.multigpulab.device.Buffer;

/**
 * How the trainer sums one parameter's gradient over the devices: afterwards every buffer of {@code grads}
 * (one per device, in device order) must hold the sum. The trainer calls it once per parameter per step.
 */
@FunctionalInterface
public interface GradientAllReduce {

    void allReduce(int param, List<Buffer> grads);

    /** The notebook's: every parameter summed on device 0, then copied back. */
    GradientAllReduce NAIVE = (param, grads) -> Collectives.allReduce(grads);

    /** Parameter {@code i} summed on device {@code i mod k}, so the devices share the work (d2l §12.5, exercise 3). */
    GradientAllReduce SPREAD = (param, grads) -> Collectives.allReduce(grads, param % grads.size());

    /** Reduce-scatter then all-gather around a ring. */
    GradientAllReduce RING = (param, grads) -> Collectives.ringAllReduce(grads);

    /** Up and down a binary tree rooted at device 0. */
    GradientAllReduce TREE = (param, grads) -> Collectives.treeAllReduce(grads);

    /** The algorithm called {@code name} on the command line: naive, spread, ring or tree. */
    static GradientAllReduce named(String name) {
        return switch (name) {
            case "naive" -> NAIVE;
            case "spread" -> SPREAD;
            case "ring" -> RING;
            case "tree" -> TREE;
            default -> throw new IllegalArgumentException("unknown allreduce algorithm '" + name
                    + "'; choose naive, spread, ring or tree");
        };
    }
}
