package org.multigpulab.jupyter;

import org.multigpulab.lessons.cli.Lab;

/**
 * {@code ./lab}: the lab's command line ({@link Lab}) with {@code ./lab notebook} added, which lives here because
 * it needs the kernel and the kernel needs the lessons.
 */
public final class LabWithNotebooks {

    private LabWithNotebooks() {}

    public static void main(String[] args) {
        System.exit(Lab.run(Lab.commandLine().addSubcommand(new NotebookCommand()), args));
    }
}
