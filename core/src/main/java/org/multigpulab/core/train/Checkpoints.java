package org.multigpulab.core.train;

import java.util.List;
import org.multigpulab.core.model.HostTensor;

/**
 * Where a training run leaves its state so that it can resume after being stopped: the trainer hands over a
 * {@link TrainingState} and the parameters after every epoch and, inside one, every {@link #everySteps()} steps.
 * Every process of the run calls it at the same step with the same state; which of them writes is the
 * implementation's choice.
 */
public interface Checkpoints {

    /** Saves nothing, and the trainer spends nothing on it. */
    Checkpoints NONE = new Checkpoints() {
        @Override
        public int everySteps() {
            return 0;
        }

        @Override
        public void save(TrainingState state, List<HostTensor> params) {}

        @Override
        public boolean saves() {
            return false;
        }
    };

    /** Steps (mini-batches, counted over the whole run) between two checkpoints inside an epoch; 0 for none. */
    int everySteps();

    /** Keeps {@code state} and {@code params}, the replicas' parameters after the state's last step. */
    void save(TrainingState state, List<HostTensor> params);

    /** Whether {@link #save} keeps anything; the trainer gathers no state for one that does not. */
    default boolean saves() {
        return true;
    }
}
