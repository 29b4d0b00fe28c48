package org.multigpulab.lessons.collectives;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The published measurements as the two sets nccl-tests/README.md describes: every file parses, says where it comes
 * from and which NCCL printed it, has rows of growing sizes, and belongs to one set only.
 */
class MeasurementSetsTest {

    @Test
    void everyFileOfBothSetsParsesWithASourceAnNcclLineAndGrowingSizes() {
        for (Measurement.Set set : Measurement.Set.values()) {
            List<Measurement> measurements = Measurement.of(set);
            assertFalse(measurements.isEmpty(), set.folder());
            for (Measurement m : measurements) {
                String where = set.folder() + "/" + m.name();
                assertNotNull(m.op(), where + ": op");
                assertTrue(m.source() != null && m.source().startsWith("https://"), where + ": source");
                assertTrue(m.nccl() != null && !m.nccl().isBlank(), where + ": nccl");
                assertTrue(m.system() != null && !m.system().isBlank(), where + ": system");
                assertFalse(m.points().isEmpty(), where + ": rows");
                long previous = 0;
                for (Measurement.Point p : m.points()) {
                    assertTrue(p.bytes() > previous, where + ": " + p.bytes() + " after " + previous);
                    assertTrue(p.busbw() > 0 && Double.isFinite(p.busbw()), where + ": busbw at " + p.bytes());
                    previous = p.bytes();
                }
            }
        }
    }

    @Test
    void noFileIsInBothSetsAndAllIsCalibrationThenValidation() {
        Set<String> calibration = new HashSet<>(Measurement.names(Measurement.Set.CALIBRATION));
        List<String> validation = Measurement.names(Measurement.Set.VALIDATION);
        assertEquals(
                calibration.size(),
                Measurement.names(Measurement.Set.CALIBRATION).size(),
                "a name listed twice");
        assertEquals(validation.size(), new HashSet<>(validation).size(), "a name listed twice");
        for (String name : validation) {
            assertFalse(calibration.contains(name), name + " is in both sets");
        }
        List<String> all = Measurement.all().stream().map(Measurement::name).toList();
        List<String> expected = new ArrayList<>(Measurement.names(Measurement.Set.CALIBRATION));
        expected.addAll(validation);
        assertEquals(expected, all);
    }

    @Test
    void aTimeRowBecomesTheBusBandwidthNcclTestsPrints() {
        // nccl-tests' all_reduce row on 16 ranks, 17179869184 B in 66132 µs: busbw 487.09 GB/s (2·15/16 · algbw)
        Measurement m = Measurement.parse(
                "t",
                List.of(
                        "# system: s",
                        "# source: https://example.org",
                        "# nccl: 2.0",
                        "# op: allreduce",
                        "# gpus: 16",
                        "# nodes: 2",
                        "# profile: h100",
                        "# topology: nvlink4",
                        "# size(B) time(us)",
                        "17179869184 66132"));
        assertEquals(487.09, m.points().getFirst().busbw(), 0.01);
    }
}
