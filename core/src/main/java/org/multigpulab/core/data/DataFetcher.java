package org.multigpulab.core.data;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.multigpulab.device.io.WholeFile;

/**
 * Gets Fashion-MNIST onto this machine when it is nowhere: the Debian package {@code dataset-fashion-mnist}
 * when apt can install it, else the upstream files over HTTP into the lab's cache folder, each checked against
 * its SHA-256 and moved into place only when complete. A failure of both is one {@link DataException} saying
 * what was tried and what to do.
 */
public final class DataFetcher {

    /** Where the four {@code .gz} files are published. */
    public static final String UPSTREAM = "http://fashion-mnist.s3-website.eu-central-1.amazonaws.com/";

    /** Told how a download goes. */
    public interface Progress {
        /** A file starts; {@code totalBytes} is -1 when unknown. */
        void start(String file, long totalBytes);

        void advance(long bytes);

        void done();

        /** A line for the user (what is being tried). */
        void say(String line);
    }

    private final DataLocator locator;
    private final Progress progress;
    private final String upstream;
    private final boolean tryApt;

    /** Fetches with apt where it is usable, else from {@link #UPSTREAM}. */
    public DataFetcher(DataLocator locator, Progress progress) {
        this(locator, progress, UPSTREAM, aptUsable());
    }

    /** Fetches from {@code upstream} (a URL ending in '/'), trying apt first only when {@code tryApt}. */
    public DataFetcher(DataLocator locator, Progress progress, String upstream, boolean tryApt) {
        this.locator = locator;
        this.progress = progress;
        this.upstream = upstream;
        this.tryApt = tryApt;
    }

    /** The folder holding the data after fetching it. */
    public Path fetch() {
        List<String> tried = new ArrayList<>();
        if (tryApt) {
            progress.say("Fashion-MNIST not found; installing the Debian package dataset-fashion-mnist");
            String outcome = aptInstall();
            if (outcome == null && FashionMnist.isComplete(DataLocator.DEBIAN_DIR)) {
                return DataLocator.DEBIAN_DIR;
            }
            tried.add("apt-get install dataset-fashion-mnist ("
                    + (outcome == null ? "files missing afterwards" : outcome) + ")");
        } else {
            tried.add("the Debian package (apt-get is not usable here: it needs root on Debian)");
        }
        Path cache = locator.cacheDir();
        try {
            progress.say("downloading Fashion-MNIST from " + upstream + " into " + cache);
            download(cache);
            return cache;
        } catch (IOException | DataException e) {
            tried.add("downloading from " + upstream + " (" + e.getMessage() + ")");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            tried.add("downloading from " + upstream + " (interrupted)");
        }
        throw new DataException("Fashion-MNIST is not on this machine and could not be fetched: tried "
                + String.join("; ", tried) + ". Install it with 'sudo apt-get install dataset-fashion-mnist',"
                + " or put the four files in a folder and pass --data DIR (or set " + DataLocator.ENV_VAR + ")");
    }

    private static boolean aptUsable() {
        return Files.isExecutable(Path.of("/usr/bin/apt-get")) && "root".equals(System.getProperty("user.name"));
    }

    /** Runs apt-get; returns null on success, else a short reason. */
    private static String aptInstall() {
        try {
            for (List<String> command : List.of(
                    List.of("apt-get", "update", "-qq"),
                    List.of("apt-get", "install", "-y", "-qq", "dataset-fashion-mnist"))) {
                Process p = new ProcessBuilder(command)
                        .redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                        .start();
                if (!p.waitFor(10, TimeUnit.MINUTES)) {
                    p.destroyForcibly();
                    return String.join(" ", command) + " took more than 10 minutes";
                }
                if (p.exitValue() != 0) {
                    return String.join(" ", command) + " exited with " + p.exitValue();
                }
            }
            return null;
        } catch (IOException e) {
            return e.getMessage();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        }
    }

    private void download(Path cache) throws IOException, InterruptedException {
        Files.createDirectories(cache);
        HttpClient http = HttpClient.newBuilder()
                .connectTimeout(Duration.ofSeconds(20))
                .followRedirects(HttpClient.Redirect.NORMAL)
                .build();
        for (FashionMnist.FileSpec spec : FashionMnist.FILES) {
            Path target = cache.resolve(spec.name() + ".gz");
            if (Files.isRegularFile(target)) {
                continue;
            }
            HttpRequest request = HttpRequest.newBuilder(URI.create(upstream + spec.name() + ".gz"))
                    .timeout(Duration.ofMinutes(5))
                    .build();
            HttpResponse<InputStream> response = http.send(request, HttpResponse.BodyHandlers.ofInputStream());
            if (response.statusCode() != 200) {
                response.body().close();
                throw new IOException("HTTP " + response.statusCode() + " for " + spec.name() + ".gz");
            }
            // Kept in memory (the largest file is 26 MB) until it is checked, then written whole under its name
            progress.start(
                    spec.name() + ".gz",
                    response.headers().firstValueAsLong("content-length").orElse(-1));
            ByteArrayOutputStream download = new ByteArrayOutputStream();
            try (InputStream in = response.body()) {
                byte[] chunk = new byte[1 << 16];
                for (int n; (n = in.read(chunk)) > 0; ) {
                    download.write(chunk, 0, n);
                    progress.advance(n);
                }
            }
            progress.done();
            byte[] packed = download.toByteArray(), served;
            try {
                served = IdxReader.uncompressed(spec.name() + ".gz", packed);
            } catch (DataException e) {
                throw new DataException(
                        "the served " + spec.name() + ".gz cannot be unpacked: the download is"
                                + " damaged or the server holds other files; it was not kept",
                        e);
            }
            Optional<String> difference = FashionMnist.difference(spec, served);
            if (difference.isPresent()) {
                throw new DataException("the served " + spec.name() + ".gz has " + difference.get()
                        + ": the download is damaged or the server holds other files; it was not kept");
            }
            WholeFile.write(target, packed);
        }
    }
}
