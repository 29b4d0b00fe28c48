package org.multigpulab.jupyter;

import com.google.gson.GsonBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.multigpulab.lessons.files.AtomicFile;

/**
 * The lab's kernel as Jupyter finds it: a folder {@code multigpu-lab} holding {@code kernel.json}, which says how
 * to start the kernel ({@code argv}, ending in the connection file), its name in Jupyter's menus, and that an
 * interrupt comes as a message (a signal would end the JVM). Immutable.
 */
public record KernelSpec(List<String> command) {

    /** The name notebooks give in their metadata ({@code kernelspec.name}). */
    public static final String NAME = "multigpu-lab";

    public static final String DISPLAY_NAME = "multigpu-lab (Java 25)";

    public KernelSpec {
        command = List.copyOf(command);
    }

    /** The kernel started by {@code ./lab}, which builds what changed and runs the JVM as every lab command does. */
    public static KernelSpec throughLab(Path labScript) {
        return new KernelSpec(List.of(labScript.toString(), "notebook", "kernel"));
    }

    /** Writes {@code dir/multigpu-lab/kernel.json}; the folder written. */
    public Path writeInto(Path dir) {
        Path folder = dir.resolve(NAME);
        try {
            Files.createDirectories(folder);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot make the kernel folder " + folder, e);
        }
        List<String> argv = new ArrayList<>(command);
        argv.add("{connection_file}");
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("argv", argv);
        json.put("display_name", DISPLAY_NAME);
        json.put("language", "java");
        json.put("interrupt_mode", "message");
        byte[] text = new GsonBuilder()
                .setPrettyPrinting()
                .disableHtmlEscaping()
                .create()
                .toJson(json)
                .getBytes(StandardCharsets.UTF_8);
        AtomicFile.write(folder.resolve("kernel.json"), out -> out.write(text));
        return folder;
    }
}
