package org.multigpulab.lessons.setup;

import java.nio.file.Path;
import java.util.Optional;
import org.multigpulab.core.data.DataFetcher;
import org.multigpulab.core.data.DataLocator;
import org.multigpulab.core.data.Dataset;
import org.multigpulab.core.data.FashionMnist;
import org.multigpulab.core.data.UnpackedCopy;
import org.multigpulab.lessons.console.DownloadProgress;
import org.multigpulab.lessons.errors.UserError;

/**
 * Fashion-MNIST as the command line asks for it: located (or fetched), checked, kept unpacked in the cache folder
 * for later runs where it was found packed ({@link UnpackedCopy}), and cut to the first {@code --train-samples} and
 * {@code --test-samples} images.
 */
public record DataSetup(Path dir, FashionMnist.Splits splits) {

    public static DataSetup load(Path explicitDir, Integer trainSamples, Integer testSamples) {
        DataLocator locator = DataLocator.of(Optional.ofNullable(explicitDir));
        Path dir = locator.locate().orElseGet(() -> new DataFetcher(locator, new DownloadProgress(System.err)).fetch());
        FashionMnist.Splits all = FashionMnist.load(dir, true);
        UnpackedCopy.keep(locator, dir);
        return new DataSetup(
                dir,
                new FashionMnist.Splits(
                        take(all.train(), trainSamples, "--train-samples"),
                        take(all.test(), testSamples, "--test-samples")));
    }

    private static Dataset take(Dataset set, Integer n, String option) {
        if (n == null) {
            return set;
        }
        UserError.requireOneOrMore(option, n);
        if (n > set.count()) {
            throw new UserError(
                    option + " " + n + " is more than the " + set.count() + " images of the " + set.name() + " set");
        }
        return set.first(n);
    }
}
