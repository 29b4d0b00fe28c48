package org.multigpulab.lessons.files;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.multigpulab.core.model.HostTensor;

/**
 * The process {@link AtomicFileKillTest} kills: writes versions {@code first}, {@code first + 1}, … of a large
 * safetensors file over one target through the production {@link SafeTensors#write}, printing
 * {@code wrote N} once version N is in place, until it is killed or its standard input closes (the test's JVM
 * is gone, so nobody will kill it).
 */
public final class VersionWriter {

    /** Floats in the large tensor, 24 MB: a write takes long enough for a kill to land inside it. */
    static final int SIZE = 6 << 20;

    private VersionWriter() {}

    /** {@code VersionWriter TARGET FIRST_VERSION}. */
    public static void main(String[] args) {
        Path target = Path.of(args[0]);
        Thread.ofPlatform().daemon().start(VersionWriter::haltWhenOrphaned);
        for (int version = Integer.parseInt(args[1]); ; version++) {
            SafeTensors.write(target, tensors(version));
            System.out.println("wrote " + version);
            System.out.flush();
        }
    }

    /**
     * Version {@code version} of the file: a one-element tensor holding the version, then {@link #SIZE} floats
     * each derived from the version and its index, so a file mixing two versions or cut short differs from
     * every whole version.
     */
    static List<HostTensor> tensors(int version) {
        float[] data = new float[SIZE];
        for (int i = 0; i < SIZE; i++) {
            data[i] = version + (i % 4096) * 4096f; // exact in float for versions below 4096
        }
        return List.of(
                new HostTensor("version", new int[] {1}, new float[] {version}),
                new HostTensor("data", new int[] {SIZE}, data));
    }

    private static void haltWhenOrphaned() {
        try {
            while (System.in.read() != -1) {
                // The test writes nothing; end of input means it has exited.
            }
        } catch (IOException e) {
            // Unreadable input is as good as closed.
        }
        Runtime.getRuntime().halt(1);
    }
}
