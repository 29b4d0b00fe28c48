package org.multigpulab.backend.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** What a range of an allocation waits for: the work on the elements it shares, and on no others. */
class HazardsTest {

    /**
     * A flat gradient of 200 parameters (ResNet-50 has 161), each written by its own kernel at its own time, then
     * the first 50 sent as a bucket: a parameter's gradient is readable once it is written, and writable once its
     * bucket, if sent, is.
     */
    @Test
    void eachOfManyPartsKeepsItsOwnTimes() {
        Hazards h = new Hazards();
        for (int p = 0; p < 200; p++) {
            h.written(10 * p, 10, p + 1);
        }
        h.read(0, 500, 1000); // bucket 0: parameters 0 to 49
        for (int p = 0; p < 200; p++) {
            assertEquals(p + 1, h.readable(10 * p + 3, 4), "parameter " + p + "'s gradient is read after its write");
            assertEquals(p < 50 ? 1000 : p + 1, h.writable(10 * p, 10), "parameter " + p + " is written after it");
        }
    }

    @Test
    void aRangeWaitsForEveryPartItOverlapsAndNeverUsedElementsForNothing() {
        Hazards h = new Hazards();
        h.written(10, 10, 5);
        h.read(15, 10, 7);
        assertEquals(0, h.writable(0, 10), "elements 0 to 9 were never used");
        assertEquals(5, h.readable(5, 10), "elements 5 to 14 hold 10 to 14, written at 5");
        assertEquals(5, h.writable(5, 10), "5 to 14 were not read");
        assertEquals(7, h.writable(5, 11), "15 was read until 7");
        assertEquals(5, h.readable(19, 100), "19 was written at 5");
        assertEquals(7, h.writable(20, 5), "20 to 24 were read until 7");
        assertEquals(0, h.readable(20, 5), "20 to 24 were never written");
        assertEquals(0, h.writable(25, 1000), "nothing past 24 was used");
    }
}
