package org.multigpulab.lessons;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

class BenchCommandTest {

    @Test
    void medianOfOddAndEvenCounts() {
        assertEquals(9.0, BenchCommand.median(new double[] {11.2, 9.0, 8.5}));
        assertEquals(9.25, BenchCommand.median(new double[] {9.5, 11.2, 9.0, 8.5}));
    }

    @Test
    void firstEpochIsComparedWithTheMedianOfTheLaterOnes() {
        // the first is left out of the median it is divided by: 12 / median(10, 9, 11) = 1.2
        assertEquals(1.2, BenchCommand.firstOverLater(new double[] {12, 10, 9, 11}), 1e-12);
        assertEquals(0.5, BenchCommand.firstOverLater(new double[] {5, 10}), 1e-12);
        assertNull(BenchCommand.firstOverLater(new double[] {12}));
    }
}
