package org.multigpulab.lessons.cli;

import java.io.PrintWriter;
import org.multigpulab.lessons.lesson.Lesson;
import org.multigpulab.lessons.lesson.Lessons;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code ./lab lessons}: every lesson with one line each. */
@Command(name = "lessons", mixinStandardHelpOptions = true, description = "List the lessons, one line each.")
final class LessonsCommand implements Runnable {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        PrintWriter out = spec.commandLine().getOut();
        for (Lesson lesson : Lessons.ALL) {
            out.printf("  %-20s %s%n", lesson.name(), lesson.summary());
        }
        out.println();
        out.println("Run one with ./lab lesson NAME (./lab lesson --help for its options).");
        out.flush();
    }
}
