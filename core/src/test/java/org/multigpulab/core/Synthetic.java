package org.multigpulab.core;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import org.multigpulab.core.data.DataLocator;
import org.multigpulab.core.data.Dataset;
import org.multigpulab.core.data.FashionMnist;
import org.multigpulab.core.data.ImageShape;
import org.multigpulab.device.Backends;
import org.multigpulab.device.Device;
import org.multigpulab.device.DeviceRequest;
import org.multigpulab.device.testing.Prerequisite;

/** Small data sets and devices for core's tests. */
public final class Synthetic {

    private Synthetic() {}

    /** {@code count} random 28×28 images whose label is a function of the image, so there is something to learn. */
    public static Dataset images(String name, int count, long seed) {
        Random random = new Random(seed);
        byte[] pixels = new byte[count * 784];
        byte[] labels = new byte[count];
        for (int i = 0; i < count; i++) {
            int label = random.nextInt(10);
            labels[i] = (byte) label;
            for (int p = 0; p < 784; p++) {
                int row = p / 28;
                boolean band = row >= label * 2 + 4 && row < label * 2 + 8;
                pixels[i * 784 + p] = (byte) (band ? 200 + random.nextInt(56) : random.nextInt(60));
            }
        }
        return new Dataset(name, pixels, labels, count, new ImageShape(1, 28, 28));
    }

    public static FashionMnist.Splits splits(int train, int test) {
        return new FashionMnist.Splits(images("train", train, 1), images("test", test, 2));
    }

    /**
     * The folder holding the real Fashion-MNIST, found as the lab finds it; where it is missing the test is
     * skipped, or fails in CI (see {@link Prerequisite}).
     */
    public static Path realDataDir() {
        Optional<Path> dir = DataLocator.of(Optional.empty()).locate();
        Prerequisite.require(
                "fashion-mnist",
                dir.isPresent(),
                "no folder of " + DataLocator.ENV_VAR + ", the cache or " + DataLocator.DEBIAN_DIR + " holds it");
        return dir.orElseThrow();
    }

    public static List<Device> sim(int gpus) {
        return Backends.open("sim", DeviceRequest.of(gpus));
    }

    /** {@code gpus} logical GPUs timed as the profile and topology given ({@code "t4"}, {@code "pcie3"}). */
    public static List<Device> sim(int gpus, String profile, String topology) {
        return Backends.open("sim", new DeviceRequest(gpus, Map.of("profile", profile, "topology", topology)));
    }
}
