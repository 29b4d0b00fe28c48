package org.multigpulab.core.optim;

import java.util.List;
import java.util.Locale;

/**
 * An optimizer as {@code torch.optim} has it: its hyperparameters (the learning rate aside, which the run gives each
 * step) and its update rule, applied on a replica's device to the gradient of the mean loss over the global batch.
 * The per-parameter state it keeps (SGD's momentum buffers, Adam's moments and its step count) lives in a
 * {@link OptimizerState} per device; every replica takes the same steps from the same gradients, so all hold the
 * same state (or, under ZeRO, each its chunk of it).
 */
public sealed interface Optimizer permits Sgd, Adam {

    /** The notebook's {@code d2l.sgd}: {@code p -= lr · grad / batch_size}, no state. */
    Optimizer NOTEBOOK_SGD = new Sgd(0, 0, false, 0);

    /** Its name on the command line and in traces: {@code sgd}, {@code adam}, {@code adamw}. */
    String name();

    /**
     * The names of the state it keeps per parameter, as {@code torch.optim}'s {@code state_dict} names them: SGD with
     * momentum {@code momentum_buffer}, Adam {@code exp_avg} and {@code exp_avg_sq}, plain SGD none.
     */
    List<String> stateNames();

    /** The tensors of state it keeps per parameter. */
    default int stateTensors() {
        return stateNames().size();
    }

    /**
     * One step on the parameters {@code state} covers, whose gradients hold the sum over a global batch of
     * {@code batchSize} samples, with learning rate {@code lr}; {@code state} advances by the step.
     */
    void step(OptimizerState state, float lr, int batchSize);

    /** The learning rate {@code torch.optim} gives it when none is given, and the notebook's 0.2 for plain SGD. */
    float defaultLr();

    /** {@code sgd}, {@code adam} or {@code adamw} from the command line, lower-cased. */
    static String checkedName(String name) {
        String n = name.toLowerCase(Locale.ROOT);
        if (!n.equals("sgd") && !n.equals("adam") && !n.equals("adamw")) {
            throw new IllegalArgumentException("unknown optimizer '" + name + "'; choose sgd, adam or adamw");
        }
        return n;
    }
}
