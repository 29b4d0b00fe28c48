package org.multigpulab.lessons.lesson;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code java … Lab train}: the command line of a training run in a JVM of its own, on this JVM's class path, as the
 * lessons that kill or spread a run start it ({@code checkpoint}, {@code multi-process}).
 */
final class LabTrainCommand {

    /** The lab's main class, named as a string: the lessons cannot name the command line's classes. */
    private static final String LAB = "org.multigpulab.lessons.cli.Lab";

    private LabTrainCommand() {}

    /** {@code java --enable-native-access=… --add-modules jdk.incubator.vector -cp … Lab train}, to add options to. */
    static List<String> start() {
        return new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED",
                "--add-modules",
                "jdk.incubator.vector",
                "-cp",
                System.getProperty("java.class.path"),
                LAB,
                "train"));
    }
}
