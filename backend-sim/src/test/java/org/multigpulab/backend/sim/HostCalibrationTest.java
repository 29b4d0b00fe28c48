package org.multigpulab.backend.sim;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.multigpulab.device.Backends;
import org.multigpulab.device.Device;
import org.multigpulab.device.DeviceRequest;

/**
 * The {@code host} profile's measurements of the cpu device are plausible for any processor from a laptop to a
 * server: each within a band some orders of magnitude wide, so that only a measurement of the wrong thing (a
 * unit slip, a timer that did not see the work, a kernel optimised away or not yet compiled, which ran conv2 at
 * 2e7 FLOP/s here) falls outside it, never a slow or a fast machine.
 */
class HostCalibrationTest {

    @Test
    void measuresPlausibleRatesForAnyProcessor() {
        try (Device cpu = Backends.open("cpu", DeviceRequest.of(1)).getFirst()) {
            HostCalibration host = HostCalibration.measure(cpu);
            assertWithin("compute (conv2)", host.flopsPerSec(), 1e9, 1e13, "FLOP/s");
            assertWithin("memory (add)", host.memoryBytesPerSec(), 0.5e9, 2e12, "B/s");
            assertWithin("launch (fill of one value)", host.launchSec(), 1e-8, 1e-3, "s");
            assertWithin("copy between devices", host.copyBytesPerSec(), 0.5e9, 2e12, "B/s");
        }
    }

    private static void assertWithin(String what, double value, double low, double high, String unit) {
        assertTrue(
                value >= low && value <= high,
                String.format(
                        Locale.ROOT,
                        "the host calibration measured %s at %.3g %s, outside [%.0e, %.0e] %s, where any processor from a"
                                + " laptop to a server falls",
                        what,
                        value,
                        unit,
                        low,
                        high,
                        unit));
    }
}
