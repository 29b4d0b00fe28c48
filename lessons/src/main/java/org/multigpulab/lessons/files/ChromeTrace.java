package org.multigpulab.lessons.files;

import com.google.gson.stream.JsonWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.multigpulab.device.Timeline;

/**
 * Simulated time as a Chrome trace-event file, which Perfetto (ui.perfetto.dev) and chrome://tracing open:
 * one process per logical GPU, with lanes for named steps, kernels of the compute stream, kernels of the
 * communication stream (the additions of collectives), copies sent and copies received, and the network
 * between nodes (the host's allreduce across them). Times are microseconds of simulated time.
 */
public final class ChromeTrace {

    private static final List<String> LANES = List.of("steps", "compute", "comm", "send", "recv", "net");

    private ChromeTrace() {}

    /** Writes {@code timeline}'s recorded events to {@code file}, atomically. */
    public static void write(Path file, Timeline timeline) {
        AtomicFile.write(file, out -> {
            Writer text = new OutputStreamWriter(out, StandardCharsets.UTF_8);
            try (JsonWriter json = new JsonWriter(text)) {
                json.beginObject();
                json.name("displayTimeUnit").value("ms");
                json.name("otherData")
                        .beginObject()
                        .name("simulated")
                        .value(timeline.description())
                        .endObject();
                json.name("traceEvents").beginArray();
                List<Timeline.DeviceTime> devices = timeline.devices();
                for (int d = 0; d < devices.size(); d++) {
                    metadata(json, "process_name", d, 0, devices.get(d).device().toString());
                    for (int lane = 0; lane < LANES.size(); lane++) {
                        metadata(json, "thread_name", d, lane, LANES.get(lane));
                    }
                }
                for (Timeline.TraceEvent e : timeline.trace()) {
                    json.beginObject()
                            .name("name")
                            .value(e.name())
                            .name("cat")
                            .value(e.category())
                            .name("ph")
                            .value("X")
                            .name("pid")
                            .value(e.device())
                            .name("tid")
                            .value(LANES.indexOf(e.lane()))
                            .name("ts")
                            .value(e.startSec() * 1e6)
                            .name("dur")
                            .value(e.durationSec() * 1e6)
                            .endObject();
                }
                json.endArray();
                json.endObject();
            }
        });
    }

    private static void metadata(JsonWriter json, String kind, int pid, int tid, String name) throws IOException {
        json.beginObject()
                .name("name")
                .value(kind)
                .name("ph")
                .value("M")
                .name("pid")
                .value(pid)
                .name("tid")
                .value(tid)
                .name("args")
                .beginObject()
                .name("name")
                .value(name)
                .endObject()
                .endObject();
    }
}
