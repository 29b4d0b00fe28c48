package org.multigpulab.jupyter;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.multigpulab.lessons.errors.UserError;

/**
 * The Jupyter installed on this machine (Debian's {@code jupyter-notebook}, {@code jupyter-nbconvert} and
 * {@code python3-ipykernel}): found on the {@code PATH}, run as a child process whose output is ours. When it is
 * missing the error names the packages, read from the lab's list {@code scripts/test-packages.txt} (need
 * {@code jupyter}). Immutable.
 */
record Jupyter(Path labHome, Path jupyter) {

    /** The Jupyter on the {@code PATH}, with {@code tool} ({@code notebook}, {@code nbconvert}) installed. */
    static Jupyter find(Path labHome, String tool) {
        Optional<Path> jupyter = onPath("jupyter");
        if (jupyter.isEmpty() || onPath("jupyter-" + tool).isEmpty()) {
            String packages = String.join(" ", packages(labHome));
            throw new UserError("Jupyter's " + tool + " is not installed: install the Debian packages " + packages
                    + " (sudo apt-get install " + packages + "; ./lab notebook as root installs them)");
        }
        return new Jupyter(labHome, jupyter.get());
    }

    /** Runs {@code jupyter ARGS...} in {@code dir}, its output ours; the exit status. */
    int run(Path dir, List<String> args) {
        List<String> command = new ArrayList<>(List.of(jupyter.toString()));
        command.addAll(args);
        try {
            Process process = new ProcessBuilder(command)
                    .directory(dir.toFile())
                    .inheritIO()
                    .start();
            // Ctrl-C reaches Jupyter and this JVM alike: Jupyter asks whether to stop, so the JVM waits for its
            // answer instead of leaving it behind; a Jupyter that is still there after 30 s is ended
            Thread waitForJupyter = new Thread(() -> {
                try {
                    if (!process.waitFor(30, TimeUnit.SECONDS)) {
                        process.destroy();
                    }
                } catch (InterruptedException e) {
                    process.destroy();
                }
            });
            Runtime.getRuntime().addShutdownHook(waitForJupyter);
            int status = process.waitFor();
            Runtime.getRuntime().removeShutdownHook(waitForJupyter);
            return status;
        } catch (IOException e) {
            throw new UserError("cannot start " + jupyter + ": " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new UserError("interrupted while " + String.join(" ", command) + " ran");
        }
    }

    /**
     * Installs {@code spec} for this user: into {@code kernels/} of the folder {@code jupyter --data-dir} names, as
     * {@code jupyter kernelspec install --user} would (that tool comes in yet another package). The folder written.
     */
    Path install(KernelSpec spec) {
        try {
            Process process = new ProcessBuilder(jupyter.toString(), "--data-dir")
                    .redirectError(ProcessBuilder.Redirect.INHERIT)
                    .start();
            String dataDir = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            if (process.waitFor() != 0 || dataDir.isEmpty()) {
                throw new UserError(
                        "jupyter --data-dir failed (exit status " + process.exitValue() + "); its message is above");
            }
            return spec.writeInto(Path.of(dataDir, "kernels"));
        } catch (IOException e) {
            throw new UserError("cannot ask " + jupyter + " for its data folder: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new UserError("interrupted while asking Jupyter for its data folder");
        }
    }

    private static Optional<Path> onPath(String program) {
        return Arrays.stream(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator))
                .filter(dir -> !dir.isEmpty())
                .map(dir -> Path.of(dir, program))
                .filter(Files::isExecutable)
                .findFirst();
    }

    /** The Debian packages of the need {@code jupyter} in the lab's list. */
    static List<String> packages(Path labHome) {
        Path list = labHome.resolve("scripts/test-packages.txt");
        try (Stream<String> lines = Files.lines(list)) {
            return lines.map(l -> l.strip().split("\\s+"))
                    .filter(words -> words[0].equals("jupyter"))
                    .findFirst()
                    .map(words -> List.of(words).subList(1, words.length))
                    .orElseThrow(() -> new IllegalStateException(list + " has no line for the need jupyter"));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + list, e);
        }
    }
}
