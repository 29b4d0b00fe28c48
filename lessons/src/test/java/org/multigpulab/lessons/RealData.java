package org.multigpulab.lessons;

import java.nio.file.Path;
import java.util.Optional;
import org.multigpulab.core.data.DataLocator;
import org.multigpulab.device.testing.Prerequisite;

/** The real Fashion-MNIST, which the end-to-end tests train on a slice of: skipped, or failed in CI, without it. */
public final class RealData {

    private RealData() {}

    /** Requires the data where {@code ./lab} finds it without {@code --data}, and returns its folder. */
    public static Path require() {
        Optional<Path> dir = DataLocator.of(Optional.empty()).locate();
        Prerequisite.require(
                "fashion-mnist",
                dir.isPresent(),
                "no folder of " + DataLocator.ENV_VAR + ", the cache or " + DataLocator.DEBIAN_DIR + " holds it");
        return dir.orElseThrow();
    }
}
