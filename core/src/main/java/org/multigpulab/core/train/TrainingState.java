package org.multigpulab.core.train;

import java.util.List;

/**
 * Where a training run stands between two steps, everything besides the parameters that it needs to go on as if
 * it had never stopped: the epoch under way ({@code epoch}, from 1; {@code epochs + 1} once all are done), how many
 * of its batches are done, what they summed so far over all processes (loss and correct predictions), the epoch's
 * wall and simulated seconds so far ({@code NaN} without a cost model), and every finished epoch's figures. The
 * shuffled order needs no state of its own: an epoch's order follows from the seed and the epoch (see
 * {@link org.multigpulab.core.data.BatchIterator#ofEpoch}), and SGD without momentum keeps nothing besides the
 * parameters.
 *
 * <p>Immutable; the constructor rejects a state that no run can be in.
 */
public record TrainingState(
        int epoch,
        int batchesDone,
        double lossSum,
        long correct,
        double wallSec,
        double simSec,
        List<TrainingListener.EpochDone> finished) {

    /** A run that has not started. */
    public static final TrainingState START = new TrainingState(1, 0, 0, 0, 0, 0, List.of());

    public TrainingState {
        if (epoch < 1 || batchesDone < 0 || correct < 0) {
            throw new IllegalArgumentException(
                    "no run is at epoch " + epoch + " with " + batchesDone + " batches and " + correct + " correct");
        }
        if (finished.size() != epoch - 1) {
            throw new IllegalArgumentException(
                    "a run in epoch " + epoch + " has finished " + (epoch - 1) + " epochs, not " + finished.size());
        }
        finished = List.copyOf(finished);
    }

    /** The state at the start of the epoch after the last of {@code finished}. */
    public static TrainingState after(List<TrainingListener.EpochDone> finished) {
        return new TrainingState(finished.size() + 1, 0, 0, 0, 0, 0, finished);
    }

    /** Whether this is the start of an epoch (or the end of training), no batch of it done yet. */
    public boolean atEpochStart() {
        return batchesDone == 0;
    }
}
