package org.multigpulab.core.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The download path, against a server on the loopback interface that this test starts and stops. */
class DataFetcherTest {

    @TempDir
    Path home;

    private final List<String> said = new ArrayList<>();
    private long bytesSeen;

    private final DataFetcher.Progress progress = new DataFetcher.Progress() {
        @Override
        public void start(String file, long totalBytes) {}

        @Override
        public void advance(long bytes) {
            bytesSeen += bytes;
        }

        @Override
        public void done() {}

        @Override
        public void say(String line) {
            said.add(line);
        }
    };

    private static byte[] gzip(byte[] raw) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (GZIPOutputStream gz = new GZIPOutputStream(out)) {
            gz.write(raw);
        } catch (IOException e) {
            throw new UncheckedIOException("a stream into memory does not fail", e);
        }
        return out.toByteArray();
    }

    private DataLocator locator() {
        return new DataLocator(Optional.empty(), Map.of(), home);
    }

    /**
     * Fetches from a server on the loopback interface that answers {@code /NAME.gz} with {@code body.apply(NAME)}
     * and returns the refusal.
     */
    private DataException fetchRefused(Function<String, byte[]> body) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", exchange -> {
            String name = exchange.getRequestURI().getPath().substring(1).replaceFirst("\\.gz$", "");
            byte[] bytes = body.apply(name);
            exchange.sendResponseHeaders(200, bytes.length);
            exchange.getResponseBody().write(bytes);
            exchange.close();
        });
        server.start();
        try {
            String upstream = "http://127.0.0.1:" + server.getAddress().getPort() + "/";
            DataFetcher fetcher = new DataFetcher(locator(), progress, upstream, false);
            return assertThrows(DataException.class, fetcher::fetch);
        } finally {
            server.stop(0);
        }
    }

    private void assertCacheEmpty() throws IOException {
        try (var left = Files.list(locator().cacheDir())) {
            assertEquals(List.of(), left.toList(), "no partial or unverified file is kept");
        }
    }

    @Test
    void aDownloadThatIsNotFashionMnistIsRefusedAndLeavesNothingBehind() throws IOException {
        byte[] body = gzip(TinyIdx.images(2)); // a valid IDX file, but not the published one
        DataException e = fetchRefused(name -> body);
        assertTrue(e.getMessage().contains("SHA-256") || e.getMessage().contains("bytes uncompressed"), e.getMessage());
        assertTrue(
                e.getMessage().contains("apt-get install dataset-fashion-mnist")
                        && e.getMessage().contains("--data DIR"),
                e.getMessage());
        assertEquals(body.length, bytesSeen, "progress saw every byte");
        assertCacheEmpty();
    }

    /**
     * An earlier fetch stopped after the training images; now every file served is the size of the published
     * one but all zeros, so only its SHA-256 gives it away. (The images already there keep the test from
     * hashing 47 MB.)
     */
    @Test
    void aDownloadWithTheRightSizeButTheWrongChecksumIsRefusedAndLeavesNothingBehind() throws IOException {
        Path cache = Files.createDirectories(locator().cacheDir());
        Path earlier = cache.resolve(FashionMnist.TRAIN_IMAGES.name() + ".gz");
        Files.write(earlier, gzip(TinyIdx.images(2)));
        DataException e = fetchRefused(name -> gzip(
                new byte
                        [(int) FashionMnist.FILES.stream()
                                .filter(f -> f.name().equals(name))
                                .findFirst()
                                .orElseThrow()
                                .bytes()]));
        FashionMnist.FileSpec refused = FashionMnist.TRAIN_LABELS;
        String zeros = FashionMnist.sha256(new byte[(int) refused.bytes()]);
        assertTrue(
                e.getMessage().contains("the served " + refused.name() + ".gz has SHA-256 " + zeros)
                        && e.getMessage().contains(refused.sha256())
                        && e.getMessage().contains("it was not kept"),
                e.getMessage());
        assertFalse(e.getMessage().contains("delete it"), "nothing was kept to delete: " + e.getMessage());
        try (var left = Files.list(cache)) {
            assertEquals(List.of(earlier), left.toList(), "the refused file is not kept, nor any part of it");
        }
    }

    @Test
    void aDownloadThatIsNotGzipIsRefusedWithoutNamingATemporaryFile() throws IOException {
        byte[] body = gzip(TinyIdx.images(2));
        DataException e = fetchRefused(name -> Arrays.copyOf(body, body.length / 2)); // cut short
        assertTrue(
                e.getMessage().contains("cannot be unpacked") && e.getMessage().contains("it was not kept"),
                e.getMessage());
        assertFalse(e.getMessage().contains(".part"), "the temporary file is gone: " + e.getMessage());
        assertCacheEmpty();
    }

    @Test
    void noServerAtAllEndsInOneMessageSayingWhatToDo() {
        DataException e = assertThrows(
                DataException.class, () -> new DataFetcher(locator(), progress, "http://127.0.0.1:9/", false).fetch());
        assertTrue(
                e.getMessage().startsWith("Fashion-MNIST is not on this machine and could not be fetched"),
                e.getMessage());
        assertFalse(said.isEmpty(), "the user is told what is being tried");
    }
}
