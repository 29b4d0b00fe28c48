package org.multigpulab.jupyter.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import javax.imageio.ImageIO;
import org.dflib.jjava.jupyter.channels.JupyterConnection;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The kernel driven through Jupyter's messages, as the notebook server drives it: cells that print, end in a value,
 * fail to compile, throw, or run until interrupted; after each failure the kernel still runs the next cell.
 */
class KernelMessagesTest {

    private static final Duration WAIT = Duration.ofSeconds(60);

    private static KernelClient client;
    private static JupyterConnection connection;

    @BeforeAll
    static void startKernel() throws Exception {
        client = new KernelClient();
        connection = new JupyterConnection(client.connection);
        new JavaKernel().becomeHandlerForConnection(connection);
        connection.connect();
        client.connect();
        // IOPub drops what is published before the subscription reaches it: ask until it answers
        for (int attempt = 1; ; attempt++) {
            String id = client.kernelInfo();
            client.shellReply(WAIT);
            try {
                client.iopubUntilIdle(id, Duration.ofSeconds(2));
                return;
            } catch (AssertionError notYet) {
                if (attempt == 10) {
                    throw notYet;
                }
            }
        }
    }

    @AfterAll
    static void stopKernel() {
        connection.close();
        client.close();
    }

    /** What one cell produced: its IOPub messages and its reply. */
    private record Run(List<JsonObject> published, JsonObject reply) {

        String stream(String name) {
            StringBuilder text = new StringBuilder();
            for (JsonObject m : published) {
                if (KernelClient.type(m).equals("stream")
                        && m.getAsJsonObject("content")
                                .get("name")
                                .getAsString()
                                .equals(name)) {
                    text.append(m.getAsJsonObject("content").get("text").getAsString());
                }
            }
            return text.toString();
        }

        JsonObject only(String msgType) {
            List<JsonObject> found = published.stream()
                    .filter(m -> KernelClient.type(m).equals(msgType))
                    .toList();
            assertEquals(1, found.size(), "one " + msgType + " in " + published);
            return found.getFirst().getAsJsonObject("content");
        }

        String status() {
            return reply.getAsJsonObject("content").get("status").getAsString();
        }
    }

    private static Run run(String code) {
        String id = client.execute(code);
        List<JsonObject> published = client.iopubUntilIdle(id, WAIT);
        return new Run(published, client.shellReply(WAIT));
    }

    @Test
    void printsAsWrittenAndShowsTheLastValue() {
        Run r = run("System.out.println(\"to out\");\nSystem.err.println(\"to err\");\n6 * 7");
        assertEquals("to out\n", r.stream("stdout"));
        assertEquals("to err\n", r.stream("stderr"));
        assertEquals(
                "42",
                r.only("execute_result")
                        .getAsJsonObject("data")
                        .get("text/plain")
                        .getAsString());
        assertEquals("ok", r.status());
    }

    @Test
    void aSemicolonAfterTheLastExpressionHidesItsValue() {
        Run r = run("Math.max(1, 2);");
        assertTrue(r.published().stream().noneMatch(m -> KernelClient.type(m).equals("execute_result")));
    }

    @Test
    void anExceptionIsAJupyterErrorNamingTheCellLine() {
        Run r = run("int thrown = 1;\nInteger.parseInt(\"x\" + thrown)");
        JsonObject error = r.only("error");
        assertEquals("NumberFormatException", error.get("ename").getAsString());
        assertTrue(error.get("evalue").getAsString().contains("\"x1\""), error.toString());
        assertTrue(error.get("traceback").toString().contains("line 2"), error.toString());
        assertEquals("error", r.status());
        assertEquals("2", value(run("thrown + 1")), "the kernel keeps the cell's state and runs on");
    }

    @Test
    void aCompilationErrorPointsAtTheLine() {
        Run r = run("int fine = 1;\nint broken = noSuchName + fine;");
        JsonObject error = r.only("error");
        assertEquals("CompilationError", error.get("ename").getAsString());
        String traceback = error.get("traceback").toString();
        assertTrue(traceback.contains("line 2") && traceback.contains("noSuchName"), traceback);
        assertEquals("5", value(run("2 + 3")));
    }

    @Test
    void anInterruptStopsASleepingCellAndABusyLoop() {
        for (String wait : new String[] {"Thread.sleep(600_000);", "while (true) { Math.sqrt(2); }"}) {
            String id = client.execute("System.out.println(\"started\");\n" + wait);
            // the line arrives while the cell still runs: output streams as it is written
            JsonObject started = client.iopubNext(id, "stream", WAIT);
            assertEquals(
                    "started\n", started.getAsJsonObject("content").get("text").getAsString());
            client.interrupt();
            assertEquals("interrupt_reply", KernelClient.type(client.controlReply(WAIT)));
            List<JsonObject> rest = client.iopubUntilIdle(id, WAIT);
            Run r = new Run(rest, client.shellReply(WAIT));
            assertEquals("Interrupted", r.only("error").get("ename").getAsString(), wait);
            assertEquals("\"alive\"", value(run("\"alive\"")));
        }
    }

    @Test
    void completesNames() {
        client.complete("Math.ma", 7);
        JsonObject reply = client.shellReply(WAIT).getAsJsonObject("content");
        assertTrue(reply.get("matches").toString().contains("max("), reply.toString());
        assertEquals(5, reply.get("cursor_start").getAsInt());
    }

    @Test
    void aChartIsShownAsAnImageAndALiveDisplayIsRedrawnInPlace() throws Exception {
        Run chart = run("display(org.knowm.xchart.QuickChart.getChart(\"t\", \"x\", \"y\", \"s\","
                + " new double[] {1, 2}, new double[] {3, 4}));");
        JsonObject data = chart.only("display_data").getAsJsonObject("data");
        BufferedImage png = ImageIO.read(new ByteArrayInputStream(
                Base64.getDecoder().decode(data.get("image/png").getAsString())));
        assertNotNull(png, "image/png decodes");
        assertTrue(png.getWidth() > 100 && png.getHeight() > 100, png.toString());
        assertTrue(data.get("image/svg+xml").getAsString().contains("<svg"));

        Run live = run("var line = liveDisplay();\nline.show(\"first\");\nline.show(\"second\");");
        JsonObject shown = live.only("display_data");
        JsonObject updated = live.only("update_display_data");
        String id = shown.getAsJsonObject("transient").get("display_id").getAsString();
        assertEquals(id, updated.getAsJsonObject("transient").get("display_id").getAsString());
        assertEquals("second", updated.getAsJsonObject("data").get("text/plain").getAsString());
    }

    private static String value(Run r) {
        assertEquals("ok", r.status(), r.published().toString());
        return r.only("execute_result")
                .getAsJsonObject("data")
                .get("text/plain")
                .getAsString();
    }
}
