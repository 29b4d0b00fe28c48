package org.multigpulab.core.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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
        public void start(String file, long totalBytes) {
        }

        @Override
        public void advance(long bytes) {
            bytesSeen += bytes;
        }

        @Override
        public void done() {
        }

        @Override
        public void say(String line) {
            said.add(line);
        }
    };

    private static byte[] gzip(byte[] raw) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (GZIPOutputStream gz = new GZIPOutputStream(out)) {
            gz.write(raw);
        }
        return out.toByteArray();
    }

    @Test
    void aDownloadThatIsNotFashionMnistIsRefusedAndLeavesNothingBehind() throws IOException {
        byte[] body = gzip(TinyIdx.images(2));   // a valid IDX file, but not the published one
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", exchange -> {
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
        try {
            DataLocator locator = new DataLocator(Optional.empty(), Map.of(), home);
            String upstream = "http://127.0.0.1:" + server.getAddress().getPort() + "/";
            DataException e = assertThrows(DataException.class,
                    () -> new DataFetcher(locator, progress, upstream, false).fetch());
            assertTrue(e.getMessage().contains("SHA-256") || e.getMessage().contains("bytes uncompressed"), e.getMessage());
            assertTrue(e.getMessage().contains("apt-get install dataset-fashion-mnist")
                    && e.getMessage().contains("--data DIR"), e.getMessage());
            assertEquals(body.length, bytesSeen, "progress saw every byte");
            try (var left = Files.list(locator.cacheDir())) {
                assertEquals(List.of(), left.toList(), "no partial or unverified file is kept");
            }
        } finally {
            server.stop(0);
        }
    }

    @Test
    void noServerAtAllEndsInOneMessageSayingWhatToDo() {
        DataLocator locator = new DataLocator(Optional.empty(), Map.of(), home);
        DataException e = assertThrows(DataException.class,
                () -> new DataFetcher(locator, progress, "http://127.0.0.1:9/", false).fetch());
        assertTrue(e.getMessage().startsWith("Fashion-MNIST is not on this machine and could not be fetched"), e.getMessage());
        assertFalse(said.isEmpty(), "the user is told what is being tried");
    }
}
