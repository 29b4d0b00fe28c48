package org.multigpulab.lessons.lesson;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.multigpulab.core.data.FashionMnist;
import org.multigpulab.core.model.LeNet;
import org.multigpulab.core.model.Model;
import org.multigpulab.core.train.DataParallelTrainer;
import org.multigpulab.core.train.TrainConfig;
import org.multigpulab.core.train.TrainResult;
import org.multigpulab.core.train.TrainingListener;
import org.multigpulab.device.Device;
import org.multigpulab.lessons.console.ProgressBars;
import org.multigpulab.lessons.errors.UserError;
import org.multigpulab.lessons.run.TrainingRun;
import org.multigpulab.lessons.setup.DataSetup;
import org.multigpulab.lessons.setup.DeviceSetup;
import org.multigpulab.lessons.setup.PlotDir;

/**
 * What a lesson runs with: where it prints, which devices (the command line's {@code --backend}, {@code
 * --physical}, {@code --gpus}), the data (cut with {@code --train-samples}, {@code --test-samples}), and how
 * many epochs and where plots go. Lessons choose their own defaults; an option given wins. Not thread-safe.
 */
public final class LessonContext {

    private final PrintStream out;
    private final DeviceSetup devices;
    private final Integer gpus;
    private final Path dataDir;
    private final Integer trainSamples;
    private final Integer testSamples;
    private final Integer epochs;
    private final Integer batchSize;
    private final boolean quiet;
    private final Integer seeds;
    private FashionMnist.Splits data;
    private final Path plotDir;

    public LessonContext(
            PrintStream out,
            DeviceSetup devices,
            Integer gpus,
            Path dataDir,
            Integer trainSamples,
            Integer testSamples,
            Integer epochs,
            Integer batchSize,
            Path plotDir,
            boolean quiet) {
        this(out, devices, gpus, dataDir, trainSamples, testSamples, epochs, batchSize, plotDir, quiet, null);
    }

    /** As the constructor above, with {@code --seeds}: how many random seeds a lesson that repeats runs takes. */
    public LessonContext(
            PrintStream out,
            DeviceSetup devices,
            Integer gpus,
            Path dataDir,
            Integer trainSamples,
            Integer testSamples,
            Integer epochs,
            Integer batchSize,
            Path plotDir,
            boolean quiet,
            Integer seeds) {
        this.out = out;
        this.seeds = seeds;
        this.devices = devices;
        this.gpus = gpus;
        this.dataDir = dataDir;
        this.trainSamples = trainSamples;
        this.testSamples = testSamples;
        this.epochs = epochs;
        this.batchSize = batchSize;
        this.plotDir = PlotDir.choose(plotDir);
        this.quiet = quiet;
    }

    public PrintStream out() {
        return out;
    }

    /** {@code --gpus}, or the lesson's own number. */
    public int gpus(int lessonDefault) {
        return gpus != null ? gpus : lessonDefault;
    }

    /**
     * {@code --gpus} or the lesson's own number, for a lesson that compares several GPUs (k with 1, or replicas
     * with each other): at least 2, and devices the backend can open, checked before the lesson trains anything.
     */
    public int gpusToCompare(int lessonDefault) {
        int k = gpus(lessonDefault);
        if (k < 2) {
            throw new UserError("this lesson compares several GPUs; choose --gpus 2 or more, not " + k);
        }
        needs(k);
        return k;
    }

    /** Checks before any work that the backend can open {@code devices} devices at once (all sim's can). */
    public void needs(int devices) {
        this.devices.checkOffers(devices);
    }

    /** {@code --epochs}, or the lesson's own number. */
    public int epochs(int lessonDefault) {
        return epochs != null ? epochs : lessonDefault;
    }

    /** {@code --seeds}, or the lesson's own number. */
    public int seeds(int lessonDefault) {
        return seeds != null ? seeds : lessonDefault;
    }

    /** {@code --batch-size}, or the notebook's 256: the batch of one GPU, which lessons scale with k. */
    public int batchSize() {
        return batchSize != null ? batchSize : 256;
    }

    /** The devices the command line chose. */
    public DeviceSetup devices() {
        return devices;
    }

    public List<Device> open(int count) {
        return devices.open(count);
    }

    /**
     * The command-line options that choose the data ({@code --data}, {@code --train-samples},
     * {@code --test-samples}) as given, for a lesson that starts {@code ./lab train} in other processes.
     */
    public List<String> dataOptions() {
        List<String> options = new ArrayList<>();
        if (dataDir != null) {
            options.addAll(List.of("--data", dataDir.toString()));
        }
        if (trainSamples != null) {
            options.addAll(List.of("--train-samples", trainSamples.toString()));
        }
        if (testSamples != null) {
            options.addAll(List.of("--test-samples", testSamples.toString()));
        }
        return options;
    }

    /** The data set, loaded once. */
    public FashionMnist.Splits data() {
        if (data == null) {
            data = DataSetup.load(dataDir, trainSamples, testSamples).splits();
        }
        return data;
    }

    /**
     * The data set cut to {@code --train-samples} and {@code --test-samples}, or where they are not given to the
     * lesson's own slice of {@code train} and {@code test} images (a lesson whose model is slow on a processor).
     */
    public FashionMnist.Splits data(int train, int test) {
        if (data == null) {
            data = DataSetup.load(
                            dataDir,
                            trainSamples != null ? trainSamples : train,
                            testSamples != null ? testSamples : test)
                    .splits();
        }
        return data;
    }

    /** The folder for this lesson's plots, checked at the start (made when the first chart is saved). */
    public Path plots() {
        return plotDir;
    }

    /** Whether to draw live windows and progress bars. */
    public boolean interactive() {
        return !quiet;
    }

    /**
     * Trains the notebook's LeNet (initial parameters from random seed 1) on {@code count} devices with
     * {@code config}, tells {@code listener} each epoch, hands the trained replicas to {@code inspect} before they
     * are freed, and closes the devices.
     */
    public TrainResult train(
            int count, TrainConfig config, TrainingListener listener, Consumer<DataParallelTrainer> inspect) {
        return train(devices, count, config, listener, inspect);
    }

    /** {@link #train(int, TrainConfig, TrainingListener, Consumer)} on devices of {@code setup}. */
    public TrainResult train(
            DeviceSetup setup,
            int count,
            TrainConfig config,
            TrainingListener listener,
            Consumer<DataParallelTrainer> inspect) {
        return train(new LeNet(), setup, count, config, listener, inspect);
    }

    /** {@link #train(DeviceSetup, int, TrainConfig, TrainingListener, Consumer)} of {@code model} (initial state seed 1's). */
    public TrainResult train(
            Model model,
            DeviceSetup setup,
            int count,
            TrainConfig config,
            TrainingListener listener,
            Consumer<DataParallelTrainer> inspect) {
        return TrainingRun.on(setup.open(count), model, model.initialState(1), config)
                .listener(listener)
                .progressBars(ProgressBars.wanted(quiet))
                .train(data(), (trainer, result) -> {
                    inspect.accept(trainer);
                    return result;
                });
    }

    /** The size in megabytes (10^6 bytes) of one float32 gradient of {@code parameters} parameters. */
    public static double gradientMegabytes(long parameters) {
        return parameters * (double) Float.BYTES / 1e6;
    }

    /**
     * The notebook's closing line of run {@code r}, and where the run had several epochs, its sec/epoch after the
     * first: a lesson's first run also pays for the JVM's warm-up, so its runs compare on those.
     */
    public static String summary(TrainResult r) {
        return r.summaryLine()
                + (r.epochs().size() > 1
                        ? "; after the first epoch " + TrainResult.seconds(r.secPerLaterEpoch()) + " sec/epoch"
                        : "");
    }

    /** {@link #train} with nothing to inspect. */
    public TrainResult train(int count, TrainConfig config, TrainingListener listener) {
        return train(count, config, listener, trainer -> {});
    }

    /**
     * The notebook's recipe (shuffled with random seed 1, gradients summed by the notebook's allreduce) with
     * {@code epochs} epochs, batches of {@code batchSize} and learning rate {@code lr}.
     */
    public static TrainConfig recipe(int epochs, int batchSize, float lr) {
        return new TrainConfig(epochs, batchSize, lr, 1, true, false);
    }
}
