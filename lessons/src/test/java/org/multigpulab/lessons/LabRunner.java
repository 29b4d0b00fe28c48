package org.multigpulab.lessons;

import java.io.PrintWriter;
import java.io.StringWriter;
import picocli.CommandLine;

/** Runs {@code ./lab} in this JVM and captures what it prints. */
final class LabRunner {

    record Result(int exit, String out, String err) {}

    private LabRunner() {}

    static Result run(String... args) {
        CommandLine cli = Lab.commandLine();
        StringWriter out = new StringWriter(), err = new StringWriter();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        java.io.PrintStream stdout = System.out;
        java.io.ByteArrayOutputStream captured = new java.io.ByteArrayOutputStream();
        System.setOut(new java.io.PrintStream(captured, true, java.nio.charset.StandardCharsets.UTF_8));
        try {
            int exit = cli.execute(args);
            return new Result(exit, out + captured.toString(java.nio.charset.StandardCharsets.UTF_8), err.toString());
        } finally {
            System.setOut(stdout);
        }
    }
}
