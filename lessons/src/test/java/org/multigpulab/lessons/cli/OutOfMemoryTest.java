package org.multigpulab.lessons.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** A full Java heap ends a run as the other errors do: one line on standard error, exit status 1, no stack trace. */
class OutOfMemoryTest {

    @Command(name = "greedy")
    static final class Greedy implements Callable<Integer> {
        @Override
        public Integer call() {
            throw new OutOfMemoryError("Java heap space");
        }
    }

    @Test
    void aFullHeapIsOneLineThatSaysWhatToChange() {
        PrintStream stderr = System.err;
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        int exit;
        try {
            exit = Lab.run(new CommandLine(new Greedy()));
        } finally {
            System.setErr(stderr);
        }
        String printed = err.toString(StandardCharsets.UTF_8);
        assertEquals(Lab.EXIT_FAILED, exit);
        assertEquals(1, printed.strip().lines().count(), printed);
        assertTrue(printed.startsWith("error: the Java heap of "), printed);
        assertTrue(printed.contains("is full (Java heap space)") && printed.contains("-Xmx"), printed);
        assertFalse(printed.contains("\tat "), printed);
    }
}
