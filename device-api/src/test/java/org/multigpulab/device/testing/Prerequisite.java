package org.multigpulab.device.testing;

import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * What a test needs from the machine (OpenCL, Open MPI, the real Fashion-MNIST), and what happens when it is
 * missing: in CI ({@code CI} set) the test fails, since CI installs everything and must run every test; elsewhere
 * it is skipped with the Debian packages to install, read from {@code scripts/test-packages.txt}, the one list
 * that {@code ./lab test} installs from. Stateless.
 */
public final class Prerequisite {

    /** The list of needs and their packages, relative to the checkout. */
    static final Path LIST = Path.of("scripts", "test-packages.txt");

    private Prerequisite() {}

    /**
     * Requires {@code need} (a name of the list, such as {@code "opencl"}): passes when {@code present}, else
     * fails the test in CI or skips it elsewhere. {@code detail} says what was looked for and not found.
     */
    public static void require(String need, boolean present, String detail) {
        if (present) {
            return;
        }
        String install = packages(need)
                .map(p ->
                        "install the Debian package(s) " + String.join(" ", p) + " (./lab test as root installs them)")
                .orElse("see " + LIST);
        if (System.getenv("CI") != null) {
            fail("CI must run the tests that need " + need + ", and " + detail + ": " + install);
        }
        assumeTrue(false, "skipped, needs " + need + " (" + detail + "): " + install);
    }

    /** Requires {@code /usr/bin/mpirun}, and returns its path. */
    public static String mpirun() {
        Path mpirun = Path.of("/usr/bin/mpirun");
        require("open-mpi", Files.isExecutable(mpirun), mpirun + " is not there");
        return mpirun.toString();
    }

    /** The packages that provide {@code need}, from the list found in this folder or one above it. */
    static Optional<List<String>> packages(String need) {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            Path list = dir.resolve(LIST);
            if (Files.isRegularFile(list)) {
                return lines(list).stream()
                        .map(l -> l.strip().split("\\s+"))
                        .filter(words -> words[0].equals(need))
                        .findFirst()
                        .map(words -> Arrays.asList(words).subList(1, words.length));
            }
        }
        return Optional.empty();
    }

    private static List<String> lines(Path list) {
        try {
            return Files.readAllLines(list);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
