package org.multigpulab.lessons.files;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A JVM started by a test on the test's own class path, to be killed: its standard error goes to a log, its
 * standard output is read line by line, and {@link #kill()} is SIGKILL on Linux, so no finally block or shutdown
 * hook of the child runs.
 */
public final class ChildJvm implements AutoCloseable {

    private final Process process;
    private final BufferedReader out;
    private final Path log;

    private ChildJvm(Process process, Path log) {
        this.process = process;
        this.out = process.inputReader();
        this.log = log;
    }

    /** Starts {@code java jvmOptions mainClass args}, its errors into {@code log}. */
    public static ChildJvm start(List<String> jvmOptions, String mainClass, List<String> args, Path log)
            throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmOptions);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), mainClass));
        command.addAll(args);
        return new ChildJvm(
                new ProcessBuilder(command).redirectError(log.toFile()).start(), log);
    }

    /**
     * The next line the child prints, waiting at most {@code seconds}; {@code null} when it ended. {@code what}
     * names the wait in the error.
     */
    public String readLine(int seconds, String what) throws IOException, InterruptedException {
        try {
            return CompletableFuture.supplyAsync(() -> {
                        try {
                            return out.readLine();
                        } catch (IOException e) {
                            throw new UncheckedIOException(e);
                        }
                    })
                    .get(seconds, TimeUnit.SECONDS);
        } catch (TimeoutException | ExecutionException e) {
            throw new AssertionError(
                    what + ": the child printed nothing for " + seconds + " s (" + e + "); its errors: " + errors(), e);
        }
    }

    /** The lines printed since the last read, once the child has ended. */
    public List<String> rest() {
        return out.lines().toList();
    }

    /** What the child wrote to standard error so far. */
    public String errors() throws IOException {
        return Files.readString(log);
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /**
     * Kills the child with SIGKILL and waits for it to end. Through its handle: unlike {@link
     * Process#destroyForcibly()} this leaves what it printed unread in the pipe.
     */
    public void kill() throws InterruptedException {
        process.toHandle().destroyForcibly();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            throw new AssertionError("the killed child did not end");
        }
    }

    @Override
    public void close() {
        process.destroyForcibly();
    }
}
