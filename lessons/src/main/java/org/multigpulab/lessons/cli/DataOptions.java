package org.multigpulab.lessons.cli;

import java.nio.file.Path;
import picocli.CommandLine.Option;

/** The options that choose the data, shared by {@code train} and {@code lesson}. */
final class DataOptions {

    @Option(names = "--train-samples", paramLabel = "N", description = "Train on the first N images only (of 60000).")
    Integer trainSamples;

    @Option(names = "--test-samples", paramLabel = "N", description = "Test on the first N images only (of 10000).")
    Integer testSamples;

    @Option(
            names = "--data",
            paramLabel = "DIR",
            description =
                    "Folder with the four Fashion-MNIST files. Default: $FASHION_MNIST_DIR, ~/.cache/multigpu-lab, /usr/share/datasets/fashion-mnist, else fetched.")
    Path data;
}
