package org.multigpulab.lessons.cli;

import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.multigpulab.lessons.errors.UserError;
import org.multigpulab.lessons.lesson.Lesson;
import org.multigpulab.lessons.lesson.LessonContext;
import org.multigpulab.lessons.lesson.Lessons;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code ./lab lesson NAME}: runs one lesson on sim by default, or on the devices asked for. */
@Command(
        name = "lesson",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Run one lesson: a notebook section or a d2l exercise, printed like the notebook.",
            "./lab lessons lists them."
        })
final class LessonCommand implements Callable<Integer> {

    @Parameters(paramLabel = "NAME", description = "The lesson (./lab lessons lists them).")
    String name;

    @CommandLine.Mixin
    DeviceOptions devicesOptions;

    @CommandLine.Mixin
    DataOptions dataOptions;

    @Option(
            names = "--epochs",
            paramLabel = "N",
            description = "Epochs of each training run (each lesson has its own default).")
    Integer epochs;

    @Option(
            names = "--batch-size",
            paramLabel = "N",
            description = "The batch of one GPU, which lessons scale with the number of GPUs. Default: 256.")
    Integer batchSize;

    @Option(
            names = "--seeds",
            paramLabel = "N",
            description = "How many random seeds a lesson that repeats an experiment runs (batchnorm); each lesson has"
                    + " its own default.")
    Integer seeds;

    @Option(names = "--plot-dir", paramLabel = "DIR", description = "Where plots go. Default: runs/<date>T<time>/.")
    Path plotDir;

    @Option(names = "--quiet", description = "No progress bars and no windows.")
    boolean quiet;

    @Option(names = "--debug", description = "Show stack traces of errors.")
    boolean debug;

    @Override
    public Integer call() {
        Lesson lesson = Lessons.find(name)
                .orElseThrow(() -> new UserError("there is no lesson '" + name + "'; ./lab lessons lists them"));
        for (var option : new Object[][] {
            {"--gpus", devicesOptions.gpus}, {"--epochs", epochs}, {"--batch-size", batchSize}, {"--seeds", seeds}
        }) {
            if (option[1] != null) {
                UserError.requireOneOrMore((String) option[0], (Integer) option[1]);
            }
        }
        lesson.run(new LessonContext(
                System.out,
                devicesOptions.setup(),
                devicesOptions.gpus,
                dataOptions.data,
                dataOptions.trainSamples,
                dataOptions.testSamples,
                epochs,
                batchSize,
                plotDir,
                quiet,
                seeds));
        return 0;
    }
}
