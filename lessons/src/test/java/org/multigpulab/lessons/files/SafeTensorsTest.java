package org.multigpulab.lessons.files;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.multigpulab.core.model.HostTensor;
import org.multigpulab.core.model.LeNet;

class SafeTensorsTest {

    @TempDir
    Path dir;

    @Test
    void roundTripsTheModelsParameters() {
        List<HostTensor> params = new LeNet().initialState(3);
        Path file = dir.resolve("p.safetensors");
        SafeTensors.write(file, params);
        List<HostTensor> back = SafeTensors.read(file);
        assertEquals(params.size(), back.size());
        for (int i = 0; i < params.size(); i++) {
            assertEquals(params.get(i).name(), back.get(i).name());
            assertArrayEquals(params.get(i).shape(), back.get(i).shape());
            assertArrayEquals(params.get(i).values(), back.get(i).values());
        }
    }

    /** The layout safetensors readers expect, checked byte by byte. */
    @Test
    void writesTheSafetensorsLayout() throws IOException {
        Path file = dir.resolve("p.safetensors");
        SafeTensors.write(
                file,
                List.of(
                        new HostTensor("a", new int[] {2}, new float[] {1.5f, -2f}),
                        new HostTensor("b", new int[] {1, 1}, new float[] {3f})));
        ByteBuffer bytes = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
        long n = bytes.getLong(0);
        assertEquals(0, (8 + n) % 8, "the data starts 8-byte aligned");
        JsonObject header = JsonParser.parseString(
                        new String(bytes.array(), 8, (int) n, StandardCharsets.UTF_8).strip())
                .getAsJsonObject();
        assertEquals("F32", header.getAsJsonObject("a").get("dtype").getAsString());
        assertEquals("[0,8]", header.getAsJsonObject("a").get("data_offsets").toString());
        assertEquals("[8,12]", header.getAsJsonObject("b").get("data_offsets").toString());
        assertEquals("[1,1]", header.getAsJsonObject("b").get("shape").toString());
        assertEquals(1.5f, bytes.getFloat((int) (8 + n)));
        assertEquals(3f, bytes.getFloat((int) (8 + n + 8)));
        assertEquals(8 + n + 12, bytes.capacity());
    }
}
