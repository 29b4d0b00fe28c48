package org.multigpulab.lessons.cli;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import picocli.CommandLine;

/** Runs {@code ./lab} in this JVM and captures what it prints. */
final class LabRunner {

    record Result(int exit, String out, String err) {}

    private LabRunner() {}

    static Result run(String... args) {
        // System.out replaced before the command line is made: a subcommand's own writer wraps the System.out of
        // that moment
        PrintStream stdout = System.out;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            CommandLine cli = Lab.commandLine();
            StringWriter out = new StringWriter(), err = new StringWriter();
            cli.setOut(new PrintWriter(out, true));
            cli.setErr(new PrintWriter(err, true));
            int exit = cli.execute(args);
            return new Result(exit, out + captured.toString(StandardCharsets.UTF_8), err.toString());
        } finally {
            System.setOut(stdout);
        }
    }
}
