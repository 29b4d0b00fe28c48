package org.multigpulab.jupyter.kernel;

import com.google.gson.Gson;
import com.google.gson.JsonObject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.dflib.jjava.jupyter.kernel.KernelConnectionProperties;
import org.dflib.jjava.jupyter.messages.HMACGenerator;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

/**
 * What Jupyter does to a kernel, for tests: sends requests on the shell and control channels and reads what comes
 * back there and on IOPub, in Jupyter's wire format (signed with HMAC-SHA256). Messages are read as JSON objects
 * holding {@code header}, {@code parent_header} and {@code content}. Not thread-safe.
 */
final class KernelClient implements AutoCloseable {

    private static final Gson GSON = new Gson();
    private static final byte[] DELIMITER = "<IDS|MSG>".getBytes(StandardCharsets.US_ASCII);

    final KernelConnectionProperties connection;
    private final HMACGenerator hmac;
    private final ZContext context = new ZContext();
    private final ZMQ.Socket shell;
    private final ZMQ.Socket control;
    private final ZMQ.Socket iopub;
    private final String session = UUID.randomUUID().toString();

    KernelClient() throws Exception {
        String key = UUID.randomUUID().toString();
        connection = new KernelConnectionProperties(
                "127.0.0.1", freePort(), freePort(), freePort(), freePort(), freePort(), "tcp", "hmac-sha256", key);
        hmac = connection.createHMACGenerator();
        shell = context.createSocket(SocketType.DEALER);
        control = context.createSocket(SocketType.DEALER);
        iopub = context.createSocket(SocketType.SUB);
        iopub.subscribe(new byte[0]);
    }

    /** Connects to the kernel, once it has bound its sockets. */
    void connect() {
        shell.connect("tcp://127.0.0.1:" + connection.getShellPort());
        control.connect("tcp://127.0.0.1:" + connection.getControlPort());
        iopub.connect("tcp://127.0.0.1:" + connection.getIopubPort());
    }

    /** Sends {@code execute_request} for {@code code}; the request's message id. */
    String execute(String code) {
        return send(
                shell,
                "execute_request",
                Map.of(
                        "code",
                        code,
                        "silent",
                        false,
                        "store_history",
                        true,
                        "user_expressions",
                        Map.of(),
                        "allow_stdin",
                        false,
                        "stop_on_error",
                        true));
    }

    String complete(String code, int cursor) {
        return send(shell, "complete_request", Map.of("code", code, "cursor_pos", cursor));
    }

    String interrupt() {
        return send(control, "interrupt_request", Map.of());
    }

    String kernelInfo() {
        return send(shell, "kernel_info_request", Map.of());
    }

    /** The next reply on the shell channel, waiting at most {@code timeout}. */
    JsonObject shellReply(Duration timeout) {
        return read(shell, timeout);
    }

    JsonObject controlReply(Duration timeout) {
        return read(control, timeout);
    }

    /** IOPub messages sent in answer to request {@code id}, up to and including the one for which it goes idle. */
    List<JsonObject> iopubUntilIdle(String id, Duration timeout) {
        List<JsonObject> messages = new ArrayList<>();
        long end = System.nanoTime() + timeout.toNanos();
        while (true) {
            JsonObject m = read(iopub, Duration.ofNanos(Math.max(1, end - System.nanoTime())));
            if (!parentId(m).equals(id)) {
                continue;
            }
            messages.add(m);
            if (type(m).equals("status")
                    && m.getAsJsonObject("content")
                            .get("execution_state")
                            .getAsString()
                            .equals("idle")) {
                return messages;
            }
        }
    }

    /** The next IOPub message of {@code msgType} for request {@code id}. */
    JsonObject iopubNext(String id, String msgType, Duration timeout) {
        long end = System.nanoTime() + timeout.toNanos();
        while (true) {
            JsonObject m = read(iopub, Duration.ofNanos(Math.max(1, end - System.nanoTime())));
            if (parentId(m).equals(id) && type(m).equals(msgType)) {
                return m;
            }
        }
    }

    static String type(JsonObject message) {
        return message.getAsJsonObject("header").get("msg_type").getAsString();
    }

    static String parentId(JsonObject message) {
        JsonObject parent = message.getAsJsonObject("parent_header");
        return parent.has("msg_id") ? parent.get("msg_id").getAsString() : "";
    }

    private String send(ZMQ.Socket socket, String msgType, Map<String, Object> content) {
        String id = UUID.randomUUID().toString();
        byte[] header = GSON.toJson(Map.of(
                        "msg_id",
                        id,
                        "session",
                        session,
                        "username",
                        "test",
                        "date",
                        java.time.Instant.now().toString(),
                        "msg_type",
                        msgType,
                        "version",
                        "5.3"))
                .getBytes(StandardCharsets.UTF_8);
        byte[] parent = "{}".getBytes(StandardCharsets.UTF_8);
        byte[] metadata = "{}".getBytes(StandardCharsets.UTF_8);
        byte[] body = GSON.toJson(content).getBytes(StandardCharsets.UTF_8);
        socket.sendMore(DELIMITER);
        socket.sendMore(hmac.calculateSignature(header, parent, metadata, body));
        socket.sendMore(header);
        socket.sendMore(parent);
        socket.sendMore(metadata);
        socket.send(body);
        return id;
    }

    /** One message: frames up to the delimiter (routing) are skipped, the signature is checked. */
    private JsonObject read(ZMQ.Socket socket, Duration timeout) {
        socket.setReceiveTimeOut((int) Math.max(1, timeout.toMillis()));
        byte[] frame;
        do {
            frame = socket.recv();
            if (frame == null) {
                throw new AssertionError("no message from the kernel within " + timeout);
            }
        } while (!java.util.Arrays.equals(frame, DELIMITER));
        String signature = socket.recvStr();
        byte[] header = socket.recv();
        byte[] parent = socket.recv();
        byte[] metadata = socket.recv();
        byte[] content = socket.recv();
        while (socket.hasReceiveMore()) {
            socket.recv();
        }
        if (!hmac.calculateSignature(header, parent, metadata, content).equals(signature)) {
            throw new AssertionError("a message from the kernel with a wrong signature");
        }
        JsonObject message = new JsonObject();
        message.add("header", GSON.fromJson(new String(header, StandardCharsets.UTF_8), JsonObject.class));
        message.add("parent_header", GSON.fromJson(new String(parent, StandardCharsets.UTF_8), JsonObject.class));
        message.add("content", GSON.fromJson(new String(content, StandardCharsets.UTF_8), JsonObject.class));
        return message;
    }

    private static int freePort() {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        context.close();
    }
}
