package org.multigpulab.lessons.cli;

import java.io.PrintWriter;
import org.multigpulab.core.data.DataException;
import org.multigpulab.core.dist.DistException;
import org.multigpulab.core.train.TrainingDivergedException;
import org.multigpulab.device.DeviceException;
import org.multigpulab.lessons.errors.UserError;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code ./lab}: the command line of the lab. Every error a user can cause ends as one line on standard error
 * and a non-zero exit status; {@code --debug} adds the stack trace.
 */
@Command(
        name = "lab",
        mixinStandardHelpOptions = true,
        versionProvider = Lab.Version.class,
        description = {
            "Data-parallel training of a CNN on several GPUs, simulated or real (d2l.ai 12.5).",
            "",
            "Start with:  ./lab train --gpus 2 --epochs 3    the notebook's training",
            "             ./lab lessons                     every cell and exercise",
            "             ./lab test                        the test suite"
        },
        subcommands = {
            TrainCommand.class,
            LessonsCommand.class,
            LessonCommand.class,
            DevicesCommand.class,
            BenchCommand.class,
            CompareCommand.class,
            CollectivesCommand.class,
            SimulateCommand.class,
            ValidateModelCommand.class,
            CommandLine.HelpCommand.class
        })
public final class Lab implements Runnable {

    /** Exit status of a run that failed on bad input or options. */
    public static final int EXIT_USAGE = 2;
    /** Exit status of a run that failed while working (for example, training diverged). */
    public static final int EXIT_FAILED = 1;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    public static void main(String[] args) {
        System.exit(run(commandLine(), args));
    }

    /**
     * Runs {@code cli} on {@code args}; a full Java heap, which picocli passes on as it passes every {@link Error},
     * ends as the other errors do: one line that says what to change.
     */
    public static int run(CommandLine cli, String... args) {
        try {
            return cli.execute(args);
        } catch (OutOfMemoryError e) {
            System.err.println("error: " + outOfMemory(e, Runtime.getRuntime().maxMemory()));
            return EXIT_FAILED;
        }
    }

    static String outOfMemory(OutOfMemoryError e, long maxHeapBytes) {
        return "the Java heap of " + (maxHeapBytes >> 20) + " MB is full (" + e.getMessage() + "): ask for less"
                + " (fewer --gpus, a smaller --batch-size) or give Java more, as in JAVA_TOOL_OPTIONS=-Xmx8g ./lab …";
    }

    /** The configured command line, for {@link #main} and for tests. */
    public static CommandLine commandLine() {
        CommandLine cli = new CommandLine(new Lab());
        cli.setParameterExceptionHandler((e, args) -> {
            PrintWriter err = e.getCommandLine().getErr();
            // picocli starts some of its messages with its own "Error: "
            err.println("error: " + e.getMessage().replaceFirst("^Error: ", ""));
            err.println("Try './" + e.getCommandLine().getCommandSpec().qualifiedName(" ") + " --help'.");
            return EXIT_USAGE;
        });
        cli.setExecutionExceptionHandler((e, commandLine, parseResult) -> {
            PrintWriter err = commandLine.getErr();
            boolean debug =
                    parseResult.subcommand() != null && parseResult.subcommand().hasMatchedOption("--debug");
            if (debug) {
                e.printStackTrace(err);
            }
            err.println("error: " + message(e));
            if (!debug && !isUserError(e)) {
                err.println("(an unexpected error: rerun with --debug for the stack trace, and report it)");
            }
            return exitCode(e);
        });
        return cli;
    }

    private static boolean isUserError(Exception e) {
        return e instanceof UserError
                || e instanceof DeviceException
                || e instanceof DataException
                || e instanceof TrainingDivergedException
                || e instanceof IllegalArgumentException
                || e instanceof DistException;
    }

    /** The exit status for an error: 1 when training diverged, else 2. */
    static int exitCode(Throwable e) {
        return e instanceof TrainingDivergedException ? EXIT_FAILED : EXIT_USAGE;
    }

    /** The error's message in one line; an {@link Error}'s kind comes first, as "Java heap space" says little alone. */
    static String message(Throwable e) {
        String m = e.getMessage();
        if (m == null || m.isBlank()) {
            return e.getClass().getSimpleName();
        }
        return e instanceof Error ? e.getClass().getSimpleName() + ": " + m : m;
    }

    /** The version from the jar's manifest, or "development" when run from classes. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = Lab.class.getPackage().getImplementationVersion();
            return new String[] {"multigpu-lab " + (v == null ? "development" : v), "Java " + Runtime.version()};
        }
    }
}
