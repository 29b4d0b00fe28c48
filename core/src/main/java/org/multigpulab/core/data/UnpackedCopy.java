package org.multigpulab.core.data;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.multigpulab.device.io.WholeFile;

/**
 * An uncompressed copy of Fashion-MNIST in the lab's cache folder, for the runs after this one. The default search
 * finds the cache folder before the Debian package's, and the 55 MB of the four files read as they are take less
 * time than their 31 MB of gzip unpacked (docs/performance-log.md, "Fashion-MNIST unpacked once").
 */
public final class UnpackedCopy {

    private UnpackedCopy() {}

    /**
     * Where the default search found {@code dir} (a folder {@link FashionMnist#load} has read) and some of its four
     * files are gzip, writes each of the four that the cache folder lacks into it, uncompressed, so that it holds
     * all four. A folder named with {@code --data} or {@code FASHION_MNIST_DIR} comes first next time too, so a
     * copy of it would never be read. Each file is written whole under its name or not at all; a cache folder that
     * cannot be written stays as it is, and the runs read the gzip files as before.
     *
     * @return the files written
     */
    public static List<Path> keep(DataLocator locator, Path dir) {
        List<Path> written = new ArrayList<>();
        List<Path> sources = FashionMnist.FILES.stream()
                .flatMap(spec -> FashionMnist.find(dir, spec).stream())
                .toList();
        if (!locator.searchesByDefault()
                || sources.size() < FashionMnist.FILES.size()
                || sources.stream().noneMatch(UnpackedCopy::gzipped)) {
            return written;
        }
        for (int i = 0; i < sources.size(); i++) {
            Path target = locator.cacheDir().resolve(FashionMnist.FILES.get(i).name());
            if (Files.exists(target)) {
                continue;
            }
            Path source = sources.get(i);
            try {
                Files.createDirectories(target.getParent());
                WholeFile.write(target, IdxReader.uncompressed(source));
                written.add(target);
            } catch (IOException | DataException e) {
                return written;
            }
        }
        return written;
    }

    private static boolean gzipped(Path file) {
        return file.getFileName().toString().endsWith(".gz");
    }
}
