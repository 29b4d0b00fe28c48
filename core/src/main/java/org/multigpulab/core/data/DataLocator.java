package org.multigpulab.core.data;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Where Fashion-MNIST is looked for, in order: the folder given on the command line ({@code --data}), the
 * environment variable {@code FASHION_MNIST_DIR}, the lab's cache folder under the user's home, and the Debian
 * package's folder {@code /usr/share/datasets/fashion-mnist}. Immutable.
 */
public record DataLocator(Optional<Path> explicit, Map<String, String> env, Path home) {

    public static final String ENV_VAR = "FASHION_MNIST_DIR";
    public static final Path DEBIAN_DIR = Path.of("/usr/share/datasets/fashion-mnist");

    /** The locator of this process: its environment and {@code user.home}. */
    public static DataLocator of(Optional<Path> explicit) {
        return new DataLocator(explicit, System.getenv(), Path.of(System.getProperty("user.home")));
    }

    /** The lab's own cache folder, where downloads go: {@code $XDG_CACHE_HOME} or {@code ~/.cache}. */
    public Path cacheDir() {
        String xdg = env.get("XDG_CACHE_HOME");
        Path base = xdg != null && !xdg.isBlank() ? Path.of(xdg) : home.resolve(".cache");
        return base.resolve("multigpu-lab").resolve("fashion-mnist");
    }

    /** Whether the search is the default one: no folder named with {@code --data} or {@code FASHION_MNIST_DIR}. */
    public boolean searchesByDefault() {
        return explicit.isEmpty() && fromEnv().isEmpty();
    }

    /** The folder {@code FASHION_MNIST_DIR} names, if it names one. */
    private Optional<Path> fromEnv() {
        String value = env.get(ENV_VAR);
        return value == null || value.isBlank() ? Optional.empty() : Optional.of(Path.of(value));
    }

    /** The folders searched, in order. */
    public List<Path> candidates() {
        List<Path> dirs = new ArrayList<>();
        explicit.ifPresent(dirs::add);
        fromEnv().ifPresent(dirs::add);
        dirs.add(cacheDir());
        dirs.add(DEBIAN_DIR);
        return dirs;
    }

    /**
     * The first folder that holds all four files. A folder named with {@code --data} must hold them: it is an
     * error, not a reason to look elsewhere, when it does not.
     */
    public Optional<Path> locate() {
        if (explicit.isPresent()) {
            Path dir = explicit.get();
            if (!Files.isDirectory(dir)) {
                throw new DataException("--data " + dir + " is not a folder; give the folder that holds the"
                        + " four Fashion-MNIST IDX files, or leave --data out to use the default places");
            }
            if (!FashionMnist.isComplete(dir)) {
                throw new DataException("--data " + dir + " lacks some of the four Fashion-MNIST files ("
                        + String.join(
                                ", ",
                                FashionMnist.FILES.stream()
                                        .map(FashionMnist.FileSpec::name)
                                        .toList())
                        + ", raw or .gz)");
            }
            return explicit;
        }
        return candidates().stream().filter(FashionMnist::isComplete).findFirst();
    }
}
