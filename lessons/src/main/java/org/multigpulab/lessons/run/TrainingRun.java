package org.multigpulab.lessons.run;

import java.util.ArrayList;
import java.util.List;
import org.multigpulab.core.data.FashionMnist;
import org.multigpulab.core.model.HostTensor;
import org.multigpulab.core.model.Model;
import org.multigpulab.core.train.Checkpoints;
import org.multigpulab.core.train.DataParallelTrainer;
import org.multigpulab.core.train.TrainConfig;
import org.multigpulab.core.train.TrainResult;
import org.multigpulab.core.train.TrainingListener;
import org.multigpulab.core.train.TrainingState;
import org.multigpulab.device.Device;
import org.multigpulab.lessons.console.ProgressBars;

/**
 * One training run, assembled the same way for every command and lesson: the devices opened for it, a trainer of
 * the model from a state over them, its listeners (and progress bars, when someone watches), the checkpoints it
 * leaves and the state it resumes from; trained, handed with its result to what the caller does next (save, report,
 * inspect the replicas), then everything closed, the devices too, whatever happened.
 *
 * <p>Made with {@link #on}, set up with the methods that return it, used once by {@link #train}.
 */
public final class TrainingRun {

    /** What to do with the trained run before it closes: read the replicas, write files, measure. */
    @FunctionalInterface
    public interface After<T> {
        T accept(DataParallelTrainer trainer, TrainResult result);
    }

    private final List<Device> devices;
    private final Model model;
    private final List<HostTensor> state;
    private final TrainConfig config;
    private final List<TrainingListener> listeners = new ArrayList<>();
    private boolean progressBars;
    private TrainingState from = TrainingState.START;
    private List<HostTensor> optimizerState = List.of();
    private Checkpoints checkpoints = Checkpoints.NONE;

    private TrainingRun(List<Device> devices, Model model, List<HostTensor> state, TrainConfig config) {
        this.devices = List.copyOf(devices);
        this.model = model;
        this.state = state;
        this.config = config;
    }

    /** A run of {@code model} from {@code state} with {@code config} on {@code devices}, which it closes at its end. */
    public static TrainingRun on(List<Device> devices, Model model, List<HostTensor> state, TrainConfig config) {
        return new TrainingRun(devices, model, state, config);
    }

    /** Tells {@code listener} the run's start, batches and epochs, after the listeners added before it. */
    public TrainingRun listener(TrainingListener listener) {
        listeners.add(listener);
        return this;
    }

    /** With {@code shown}, progress bars on the terminal for the epochs and the steps. */
    public TrainingRun progressBars(boolean shown) {
        this.progressBars = shown;
        return this;
    }

    /**
     * Resumes from {@code state} with the optimizer's state {@code optimizer}, both from a checkpoint of this run, and
     * hands {@code sink} a checkpoint as the run goes.
     */
    public TrainingRun checkpoints(TrainingState state, List<HostTensor> optimizer, Checkpoints sink) {
        this.from = state;
        this.optimizerState = List.copyOf(optimizer);
        this.checkpoints = sink;
        return this;
    }

    /** Trains on {@code data}, then gives the trainer and its result to {@code after}; closes everything. */
    public <T> T train(FashionMnist.Splits data, After<T> after) {
        List<TrainingListener> all = new ArrayList<>(listeners);
        ProgressBars bars = progressBars ? new ProgressBars() : null;
        if (bars != null) {
            all.add(bars);
        }
        try (DataParallelTrainer trainer = new DataParallelTrainer(devices, model, state, config)) {
            if (!optimizerState.isEmpty()) {
                trainer.resumeOptimizer(optimizerState);
            }
            TrainResult result = trainer.train(data, TrainingListener.all(all), from, checkpoints);
            return after.accept(trainer, result);
        } finally {
            if (bars != null) {
                bars.close();
            }
            devices.forEach(Device::close);
        }
    }
}
