package org.multigpulab.backend.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.multigpulab.device.Backends;
import org.multigpulab.device.Buffer;
import org.multigpulab.device.ConvShape;
import org.multigpulab.device.Device;
import org.multigpulab.device.DeviceRequest;
import org.multigpulab.device.KernelOp;
import org.multigpulab.device.Timeline;

/**
 * The {@code host} profile's measurements of the cpu device are plausible for any processor from a laptop to a
 * server: each within a band some orders of magnitude wide, so that only a measurement of the wrong thing (a
 * unit slip, a timer that did not see the work, a kernel optimised away or not yet compiled) falls outside it,
 * never a slow or a fast machine. The cache gives back what was measured, and a file it cannot read is measured
 * again.
 */
class HostCalibrationTest {

    // LeNet's conv2 on a shard of 128: a shape the calibration does not measure
    private static final ConvShape CONV2 = new ConvShape(128, 20, 13, 13, 50, 5, 5);

    @Test
    void measuresEveryKernelKindAtPlausibleRates() {
        try (Device cpu = Backends.open("cpu", DeviceRequest.of(1)).getFirst();
                Buffer x = cpu.allocate(CONV2.inputLength());
                Buffer w = cpu.allocate(CONV2.filterLength());
                Buffer y = cpu.allocate(CONV2.outputLength());
                Buffer big = cpu.allocate(1 << 22)) {
            HostCalibration host = HostCalibration.measure(cpu);
            for (KernelOp op : KernelOp.all()) {
                assertTrue(
                        host.kernels().keySet().stream().anyMatch(k -> k.startsWith(op.kernelName())),
                        op.kernelName() + " was not calibrated: "
                                + host.kernels().keySet());
            }
            KernelOp.Call conv = new KernelOp.Conv2dForward(x, w, y, CONV2);
            assertWithin("conv2 forward", conv.flops() / host.kernelSeconds(conv), 1e9, 1e13, "FLOP/s");
            KernelOp.Call add = new KernelOp.Add(big, big, big, 1 << 22);
            assertWithin("an add of 4M floats", add.bytes() / host.kernelSeconds(add), 0.5e9, 2e12, "B/s");
            KernelOp.Call tiny = new KernelOp.Fill(0f, x, 1);
            assertWithin("a fill of one value", host.kernelSeconds(tiny), 1e-8, 1e-3, "s");
            assertWithin("a copy's rate", 1 / host.copy().secPerByte(), 0.5e9, 2e12, "B/s");
        }
    }

    @Test
    void theCacheGivesBackWhatWasMeasuredAndReplacesWhatItCannotRead(@TempDir Path folder) throws IOException {
        try (Device cpu = Backends.open("cpu", DeviceRequest.of(1)).getFirst()) {
            CalibrationCache cache = new CalibrationCache(folder);
            CalibrationCache.Calibrated first = cache.calibrate(cpu);
            assertFalse(first.cached(), "nothing was cached yet");
            assertEquals(cache.file(cpu), first.file());
            CalibrationCache.Calibrated second = cache.calibrate(cpu);
            assertTrue(second.cached(), "the second calibration should come from " + first.file());
            first.calibration().kernels().forEach((kind, cost) -> {
                KernelCost read = second.calibration().kernels().get(kind);
                assertEquals(cost.fixedSec(), read.fixedSec(), 1e-5 * cost.fixedSec() + 1e-15, kind);
                assertEquals(cost.secPerFlop(), read.secPerFlop(), 1e-5 * cost.secPerFlop() + 1e-24, kind);
                assertEquals(cost.secPerByte(), read.secPerByte(), 1e-5 * cost.secPerByte() + 1e-24, kind);
            });
            first.calibration().tables().forEach((shape, table) -> {
                CostTable read = second.calibration().tables().get(shape);
                for (int i = 0; i < table.work().length; i++) {
                    assertEquals(table.work()[i], read.work()[i], 1e-5 * table.work()[i], shape);
                    assertEquals(table.seconds()[i], read.seconds()[i], 1e-5 * table.seconds()[i], shape);
                }
            });
            Timeline.Calibration report = second.report(cpu);
            assertEquals(first.calibration().tables().size(), report.tables().size());
            assertTrue(report.cached());
            assertEquals(first.calibration().kernels().size(), report.kernels().size());

            Files.writeString(first.file(), "kernel.gemm_nn=not a number\n");
            CalibrationCache.Calibrated again = cache.calibrate(cpu);
            assertFalse(again.cached(), "an unreadable file is measured again");
            assertTrue(new CalibrationCache(folder).calibrate(cpu).cached(), "and replaced by a readable one");
            try (var files = Files.list(folder)) {
                List<Path> left = files.toList();
                assertEquals(List.of(first.file()), left, "one file per device, no temporary files left");
            }
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
