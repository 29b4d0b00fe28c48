package org.multigpulab.lessons.files;

import com.google.gson.FieldNamingPolicy;
import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParseException;
import com.google.gson.JsonParser;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.multigpulab.core.train.Checkpoint;
import org.multigpulab.core.train.TrainingState;
import org.multigpulab.lessons.errors.UserError;

/**
 * A {@link Checkpoint} as one safetensors file, written atomically: the parameters as tensors named as {@code
 * --save} names them (so {@code safetensors.torch.load_file} reads them), and in the header's {@code __metadata__}
 * under {@value #KEY} one JSON string with the schema, the run that must match to resume, the training state and
 * where the run was placed (which may change). One file, so the state and the parameters are replaced together.
 */
public final class CheckpointFile {

    /** The metadata entry holding the JSON. */
    public static final String KEY = "multigpu-lab.checkpoint";

    private static final String SCHEMA_PREFIX = "multigpu-lab/checkpoint/";

    private static final Gson GSON = new GsonBuilder()
            .setFieldNamingPolicy(FieldNamingPolicy.LOWER_CASE_WITH_UNDERSCORES)
            .serializeSpecialFloatingPointValues()
            .serializeNulls()
            .create();

    private CheckpointFile() {}

    /**
     * Where a run trained, which a resumed run may change: the backend (and with {@code sim} the physical one),
     * the devices of each process, the processes, and the folder of its plots.
     */
    public record Placement(String backend, String physical, int devicesPerProcess, int processes, String plotDir) {

        /** What changed from {@code before} to this placement, for one line ({@code "devices 2 → 1"}); empty if nothing. */
        public List<String> changesSince(Placement before) {
            List<String> changes = new ArrayList<>();
            change(changes, "backend", before.backend, backend);
            change(changes, "physical device", before.physical, physical);
            change(changes, "devices per process", before.devicesPerProcess, devicesPerProcess);
            change(changes, "processes", before.processes, processes);
            change(changes, "plot folder", before.plotDir, plotDir);
            return changes;
        }

        private static void change(List<String> changes, String what, Object before, Object now) {
            if (!Objects.equals(before, now)) {
                changes.add(what + " " + before + " → " + now);
            }
        }
    }

    /** What a checkpoint file holds, and a hash of its bytes (ranks compare it to know they read the same). */
    public record Contents(Checkpoint checkpoint, Placement placement, long hash) {}

    /** The JSON in the metadata. */
    private record Stored(String schema, Checkpoint.Run run, TrainingState state, Placement placement) {}

    /**
     * Writes {@code checkpoint} and {@code placement} to {@code file}, atomically: a kill or crash meanwhile
     * leaves the previous checkpoint whole. {@link KillPoints} marks the write half done and done.
     */
    public static void write(Path file, Checkpoint checkpoint, Placement placement) {
        String json = GSON.toJson(
                new Stored(SCHEMA_PREFIX + Checkpoint.SCHEMA, checkpoint.run(), checkpoint.state(), placement));
        byte[] bytes = SafeTensors.encode(checkpoint.params(), Map.of(KEY, json));
        String point = "checkpoint " + checkpoint.state().epoch() + "/"
                + checkpoint.state().batchesDone();
        AtomicFile.write(file, out -> {
            int half = bytes.length / 2;
            out.write(bytes, 0, half);
            out.flush();
            KillPoints.reach(point + " half-written");
            out.write(bytes, half, bytes.length - half);
        });
        KillPoints.reach(point + " written");
    }

    /**
     * Reads the checkpoint in {@code file}. A missing, unreadable, truncated or foreign file, one without a
     * training state, or one of a newer schema is the user's error, named.
     */
    public static Contents read(Path file) {
        byte[] bytes = SafeTensors.readBytes(file);
        SafeTensors.Contents contents = SafeTensors.decode(file, bytes);
        String json = contents.metadata().get(KEY);
        if (json == null) {
            throw new UserError(file + " holds parameters but no training state, so it is not a checkpoint of"
                    + " --checkpoint; to start from its parameters use --load " + file);
        }
        try {
            JsonObject object = JsonParser.parseString(json).getAsJsonObject();
            checkSchema(file, object.get("schema"));
            Stored stored = GSON.fromJson(object, Stored.class);
            if (stored.run() == null || stored.state() == null || stored.placement() == null) {
                throw corrupt(file, "it lacks the run, its state or its placement");
            }
            return new Contents(
                    new Checkpoint(stored.run(), stored.state(), contents.tensors()), stored.placement(), hash(bytes));
        } catch (JsonParseException | IllegalStateException | IllegalArgumentException | NullPointerException e) {
            throw corrupt(file, e.getMessage());
        }
    }

    private static void checkSchema(Path file, JsonElement schema) {
        String text = schema == null || !schema.isJsonPrimitive() ? "" : schema.getAsString();
        if (!text.startsWith(SCHEMA_PREFIX)) {
            throw corrupt(file, "its schema is '" + text + "', not " + SCHEMA_PREFIX + "N");
        }
        int version;
        try {
            version = Integer.parseInt(text.substring(SCHEMA_PREFIX.length()));
        } catch (NumberFormatException e) {
            throw corrupt(file, "its schema is '" + text + "', not " + SCHEMA_PREFIX + "N");
        }
        if (version > Checkpoint.SCHEMA) {
            throw new UserError(file + " was written by a newer multigpu-lab (checkpoint schema " + version
                    + "; this one reads up to " + Checkpoint.SCHEMA + "); resume it with that version");
        }
        if (version < Checkpoint.OLDEST_SCHEMA) {
            throw new UserError(file + " has the old checkpoint schema " + version + " (this lab reads "
                    + Checkpoint.OLDEST_SCHEMA + " to " + Checkpoint.SCHEMA
                    + "); resume it with the version that wrote it, or start a new run");
        }
    }

    /** The first 8 bytes of the SHA-256 of {@code bytes}. */
    private static long hash(byte[] bytes) {
        try {
            return ByteBuffer.wrap(MessageDigest.getInstance("SHA-256").digest(bytes))
                    .getLong();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    private static UserError corrupt(Path file, String why) {
        return new UserError(file + " is not a readable checkpoint: " + why);
    }
}
