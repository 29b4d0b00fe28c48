package org.multigpulab.backend.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * A cost table gives back what it measured, follows a power law between its sizes exactly, a fixed-plus-rate cost
 * closely, and beyond its sizes neither falls nor runs ahead of the rates it measured.
 */
class CostTableTest {

    @Test
    void givesBackItsPointsAndFollowsEachPowerLawBetweenThem() {
        long seed = System.nanoTime();
        System.out.println("CostTableTest seed " + seed);
        Random random = new Random(seed);
        for (int trial = 0; trial < 50; trial++) {
            // a rate that changes with size: a different power law on each segment
            List<CostTable.Point> points = new ArrayList<>();
            double w = 1e3 * (1 + random.nextDouble());
            double t = 1e-6 * (1 + random.nextDouble());
            for (int i = 0; i < 5; i++) {
                points.add(new CostTable.Point(w, t));
                double factor = 2 + 6 * random.nextDouble();
                w *= factor;
                t *= Math.pow(factor, random.nextDouble());
            }
            CostTable table = CostTable.of(points);
            for (CostTable.Point p : points) {
                assertEquals(p.seconds(), table.seconds(p.work()), 1e-12 * p.seconds(), "seed " + seed);
            }
            for (int i = 0; i + 1 < points.size(); i++) {
                CostTable.Point lo = points.get(i);
                CostTable.Point hi = points.get(i + 1);
                double between = lo.work() * Math.pow(hi.work() / lo.work(), random.nextDouble());
                double power = Math.log(hi.seconds() / lo.seconds()) / Math.log(hi.work() / lo.work());
                double expected = lo.seconds() * Math.pow(between / lo.work(), power);
                assertEquals(expected, table.seconds(between), 1e-9 * expected, "seed " + seed);
            }
        }
    }

    @Test
    void readsAFixedCostAndARateWithinAFewPercentBetweenSizesTwiceApart() {
        // what the calibration measures: a call's fixed cost and its rate, at sizes twice to four times apart
        double fixed = 20e-6;
        double rate = 100e9;
        List<CostTable.Point> points = new ArrayList<>();
        for (double w = 1e6; w <= 1e9; w *= 2) {
            points.add(new CostTable.Point(w, fixed + w / rate));
        }
        CostTable table = CostTable.of(points);
        for (double w = 1e6; w <= 1e9; w *= 1.37) {
            double truth = fixed + w / rate;
            assertEquals(truth, table.seconds(w), 0.03 * truth, "at " + w + " FLOPs");
        }
        // beyond the largest size the fixed cost is not paid again: the rate between the two largest sizes
        double far = 1e10;
        assertEquals(fixed + far / rate, table.seconds(far), 0.01 * (fixed + far / rate));
    }

    @Test
    void beyondItsSizesNeitherFallsNorRunsAhead() {
        CostTable table = CostTable.of(List.of(
                new CostTable.Point(1e3, 2e-6), new CostTable.Point(1e4, 4e-6), new CostTable.Point(1e5, 20e-6)));
        assertTrue(table.seconds(10) <= 2e-6 && table.seconds(10) > 0, "a smaller call costs no more, and something");
        assertEquals(2e-6 * Math.pow(10.0 / 1e3, Math.log10(2)), table.seconds(10), 1e-15, "the first power goes on");
        double average = 20e-6 / 1e5;
        double big = table.seconds(1e7);
        assertTrue(
                big >= 20e-6 + (1e7 - 1e5) * average / 2 && big <= 20e-6 + (1e7 - 1e5) * average,
                "a larger call costs between half and all of the largest's cost per unit: " + big);
        // a table whose largest size came out faster than the one before (noise) still grows
        CostTable noisy = CostTable.of(List.of(new CostTable.Point(1e3, 5e-6), new CostTable.Point(1e4, 4e-6)));
        assertTrue(noisy.seconds(1e5) > noisy.seconds(1e4));
    }

    @Test
    void averagesOneSizeMeasuredTwiceAndReadsBackWhatItWrites() {
        CostTable table = CostTable.of(List.of(
                new CostTable.Point(2e3, 3e-6), new CostTable.Point(1e3, 1e-6), new CostTable.Point(2e3, 5e-6)));
        assertEquals(2, table.work().length);
        assertEquals(4e-6, table.seconds(2e3), 1e-18);
        assertEquals(table, CostTable.parse(table.text()));
        assertThrows(IllegalArgumentException.class, () -> CostTable.parse("1000:2e-6 oops"));
        assertThrows(IllegalArgumentException.class, () -> CostTable.parse("1000:-2e-6"));
        assertThrows(IllegalArgumentException.class, () -> CostTable.of(List.of()));
    }
}
