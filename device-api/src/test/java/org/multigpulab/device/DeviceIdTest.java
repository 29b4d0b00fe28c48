package org.multigpulab.device;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class DeviceIdTest {

    @ParameterizedTest
    @ValueSource(strings = {"sim:1", "cpu:0", "djl:cuda:0", "opencl:0", "djl:cpu"})
    void printsWhatItParses(String text) {
        assertEquals(text, DeviceId.parse(text).toString());
        assertEquals(DeviceId.parse(text), DeviceId.parse(DeviceId.parse(text).toString()));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "sim", ":1", "sim:", "Sim:1", "sim: 1"})
    void rejectsWhatIsNoDeviceId(String text) {
        assertThrows(IllegalArgumentException.class, () -> DeviceId.parse(text));
    }

    @Test
    void indexIsTheTrailingNumber() {
        assertEquals(0, DeviceId.parse("djl:cuda:0").index());
        assertEquals(12, DeviceId.parse("sim:12").index());
        assertEquals(-1, DeviceId.parse("djl:cpu").index());
        assertEquals(
                "backend:sim, local:3",
                "backend:" + DeviceId.of("sim", 3).backend() + ", local:"
                        + DeviceId.of("sim", 3).local());
    }
}
