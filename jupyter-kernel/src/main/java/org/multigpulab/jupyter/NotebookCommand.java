package org.multigpulab.jupyter;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import org.multigpulab.lessons.errors.UserError;
import org.multigpulab.lessons.files.AtomicFile;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ./lab notebook}: installs the lab's Java kernel for this user and starts Jupyter in {@code notebooks/};
 * with {@code --execute NAME} it runs one notebook headless instead and writes the executed copy.
 */
@Command(
        name = "notebook",
        mixinStandardHelpOptions = true,
        description = {
            "Open the notebooks in Jupyter, on the lab's Java kernel \"" + KernelSpec.DISPLAY_NAME + "\".",
            "Installs the kernel for this user, then starts Jupyter in notebooks/; Jupyter prints the URL to open.",
            "With --execute NAME, runs notebooks/NAME.ipynb from top to bottom without a browser instead."
        },
        subcommands = KernelCommand.class)
final class NotebookCommand implements Callable<Integer> {

    @Option(
            names = "--execute",
            paramLabel = "NAME",
            description = "run notebooks/NAME.ipynb headless (jupyter nbconvert --execute) and write the executed copy")
    String execute;

    @Option(
            names = "--output-dir",
            paramLabel = "DIR",
            defaultValue = "runs/notebooks",
            description = "with --execute: the folder for the executed copy [${DEFAULT-VALUE}]")
    Path outputDir;

    @Option(
            names = "--lab-home",
            hidden = true,
            defaultValue = "${env:LAB_HOME}",
            description = "the checkout (./lab sets it)")
    Path labHome;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        if (labHome == null) {
            throw new UserError("start notebooks with ./lab notebook, which says where the lab is (LAB_HOME)");
        }
        Path notebooks = labHome.resolve("notebooks");
        if (execute != null) {
            Path notebook = notebook(notebooks, execute);
            Jupyter jupyter = Jupyter.find(labHome, "nbconvert");
            installKernel(jupyter);
            return executeCopy(jupyter, notebook);
        }
        Jupyter jupyter = Jupyter.find(labHome, "notebook");
        installKernel(jupyter);
        PrintWriter out = spec.commandLine().getOut();
        out.println("starting Jupyter in " + notebooks + " with the kernel \"" + KernelSpec.DISPLAY_NAME
                + "\"; open the URL it prints below (Ctrl-C twice stops it)");
        out.flush();
        List<String> args = new ArrayList<>(List.of("notebook", "--notebook-dir=" + notebooks));
        if ("root".equals(System.getProperty("user.name"))) {
            args.add("--allow-root");
        }
        if (System.getenv("DISPLAY") == null) {
            args.add("--no-browser");
        }
        return jupyter.run(notebooks, args);
    }

    private void installKernel(Jupyter jupyter) {
        Path folder = jupyter.install(KernelSpec.throughLab(labHome.resolve("lab")));
        spec.commandLine().getOut().println("kernel \"" + KernelSpec.DISPLAY_NAME + "\" installed in " + folder);
    }

    /** Runs {@code notebook} with nbconvert into a staging folder, then moves the copy into place whole. */
    private int executeCopy(Jupyter jupyter, Path notebook) {
        String file = notebook.getFileName().toString();
        Path target = outputDir.toAbsolutePath().resolve(file);
        try {
            Files.createDirectories(target.getParent());
            Path staging = Files.createTempDirectory(target.getParent(), ".executing-");
            try {
                int status = jupyter.run(
                        notebook.getParent(),
                        List.of(
                                "nbconvert",
                                "--to",
                                "notebook",
                                "--execute",
                                "--output-dir",
                                staging.toString(),
                                "--output",
                                file,
                                notebook.toString()));
                if (status != 0) {
                    spec.commandLine()
                            .getErr()
                            .println("error: " + file + " failed (nbconvert's exit status " + status
                                    + "); the failing cell and its error are above");
                    return 1;
                }
                AtomicFile.write(target, out -> Files.copy(staging.resolve(file), out));
            } finally {
                try (Stream<Path> files = Files.list(staging)) {
                    for (Path p : files.toList()) {
                        Files.delete(p);
                    }
                }
                Files.delete(staging);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the executed copy " + target, e);
        }
        spec.commandLine().getOut().println("executed copy: " + target);
        return 0;
    }

    /** {@code notebooks/NAME.ipynb}; an unknown name fails with the names there are. */
    private static Path notebook(Path notebooks, String name) {
        String file = name.endsWith(".ipynb") ? name : name + ".ipynb";
        Path notebook = notebooks.resolve(file);
        if (!Files.isRegularFile(notebook)) {
            throw new UserError("there is no notebook " + file + " in " + notebooks + "; the notebooks are: "
                    + String.join(", ", names(notebooks)));
        }
        return notebook;
    }

    static List<String> names(Path notebooks) {
        try (Stream<Path> files = Files.list(notebooks)) {
            return files.map(p -> p.getFileName().toString())
                    .filter(n -> n.endsWith(".ipynb"))
                    .map(n -> n.substring(0, n.length() - ".ipynb".length()))
                    .sorted()
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + notebooks, e);
        }
    }
}
