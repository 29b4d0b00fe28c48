package org.multigpulab.core.data;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;

/**
 * Fashion-MNIST: 60,000 training and 10,000 test images of 28×28 pixels in ten classes, read from the four
 * IDX files of a folder (each raw or {@code .gz}) and checked against the SHA-256 of the published files.
 */
public final class FashionMnist {

    /** One of the four files: its name, uncompressed size and SHA-256 of the uncompressed bytes. */
    public record FileSpec(String name, long bytes, String sha256) {}

    public static final FileSpec TRAIN_IMAGES = new FileSpec(
            "train-images-idx3-ubyte", 47_040_016, "c59f468a2f672dc815687fe0f83887768d799fd8a3f3276145d20f83aa44d888");
    public static final FileSpec TRAIN_LABELS = new FileSpec(
            "train-labels-idx1-ubyte", 60_008, "bad3541b69d912435c50bb6ba87bec294ff4f6a2e1246121d8633921760443d9");
    public static final FileSpec TEST_IMAGES = new FileSpec(
            "t10k-images-idx3-ubyte", 7_840_016, "5b4141f0afbad91edebe8549f8fcffe087ea10ca49f1dbef5c9a5cd8815ce37b");
    public static final FileSpec TEST_LABELS = new FileSpec(
            "t10k-labels-idx1-ubyte", 10_008, "0402a96d92fd2663957122ceb108a494c5af83dab82d92729df917d7dec38c34");
    public static final List<FileSpec> FILES = List.of(TRAIN_IMAGES, TRAIN_LABELS, TEST_IMAGES, TEST_LABELS);

    public static final List<String> CLASS_NAMES = List.of(
            "t-shirt", "trouser", "pullover", "dress", "coat", "sandal", "shirt", "sneaker", "bag", "ankle boot");

    /** The training and the test set. */
    public record Splits(Dataset train, Dataset test) {}

    private FashionMnist() {}

    /** The file for {@code spec} in {@code dir}, raw or gzip-compressed, if there is one. */
    public static Optional<Path> find(Path dir, FileSpec spec) {
        for (String name : List.of(spec.name(), spec.name() + ".gz")) {
            Path p = dir.resolve(name);
            if (Files.isRegularFile(p)) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }

    /** Whether {@code dir} holds all four files. */
    public static boolean isComplete(Path dir) {
        return FILES.stream().allMatch(f -> find(dir, f).isPresent());
    }

    /**
     * Loads both splits from {@code dir}; with {@code verify}, each file's SHA-256 must match the published one
     * (tests that write their own tiny files turn it off).
     */
    public static Splits load(Path dir, boolean verify) {
        return new Splits(
                load(dir, "train", TRAIN_IMAGES, TRAIN_LABELS, verify),
                load(dir, "test", TEST_IMAGES, TEST_LABELS, verify));
    }

    private static Dataset load(Path dir, String split, FileSpec imagesSpec, FileSpec labelsSpec, boolean verify) {
        IdxReader.Idx images = read(dir, imagesSpec, 3, verify);
        IdxReader.Idx labels = read(dir, labelsSpec, 1, verify);
        int count = images.dims()[0];
        if (labels.dims()[0] != count) {
            throw new DataException("the " + split + " set in " + dir + " has " + count + " images but "
                    + labels.dims()[0] + " labels; the files do not belong together");
        }
        byte[] y = labels.data();
        for (int i = 0; i < y.length; i++) {
            if ((y[i] & 0xff) >= CLASS_NAMES.size()) {
                throw new DataException(labelsSpec.name() + " in " + dir + ": label " + (y[i] & 0xff) + " of sample "
                        + i + " is not one of the " + CLASS_NAMES.size() + " classes");
            }
        }
        return new Dataset(split, images.data(), y, count, new ImageShape(1, images.dims()[1], images.dims()[2]));
    }

    private static IdxReader.Idx read(Path dir, FileSpec spec, int dims, boolean verify) {
        Path file = find(dir, spec)
                .orElseThrow(() -> new DataException(
                        dir + " has no " + spec.name() + " (or .gz); the folder needs all four Fashion-MNIST files"));
        byte[] bytes = IdxReader.uncompressed(file);
        if (verify) {
            verify(file, spec, bytes);
        }
        return IdxReader.parse(file.toString(), bytes, dims);
    }

    /** Checks size and SHA-256 of the uncompressed {@code bytes} of {@code file} against {@code spec}. */
    public static void verify(Path file, FileSpec spec, byte[] bytes) {
        difference(spec, bytes).ifPresent(how -> {
            throw new DataException(file + " has " + how + "; the file is truncated, damaged or another data"
                    + " set: delete it (it will be fetched again) or point --data at the real files");
        });
    }

    /**
     * How the uncompressed {@code bytes} differ from the published file of {@code spec}: their size, or else
     * their SHA-256, each beside the published one; empty when they are that file.
     */
    static Optional<String> difference(FileSpec spec, byte[] bytes) {
        if (bytes.length != spec.bytes()) {
            return Optional.of(bytes.length + " bytes uncompressed, but " + spec.name() + " has " + spec.bytes());
        }
        String sha = sha256(bytes);
        return sha.equals(spec.sha256())
                ? Optional.empty()
                : Optional.of("SHA-256 " + sha + ", but " + spec.name() + " has " + spec.sha256());
    }

    static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }
}
