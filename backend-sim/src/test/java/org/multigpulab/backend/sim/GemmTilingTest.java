package org.multigpulab.backend.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.multigpulab.device.ConvShape;
import org.multigpulab.device.KernelOp;

/** The share of a GPU that a tiled product keeps busy, worked by hand for shapes that show each rule. */
class GemmTilingTest {

    @Test
    void aFullProductOnWholeWavesKeepsEveryMultiprocessorBusy() {
        // 80 tiles of 128 × 128 on 80 multiprocessors: one wave, no edge
        assertEquals(1.0, new GemmTiling(128 * 8, 128 * 10, 4096).utilization(80), 1e-12);
    }

    @Test
    void theLastWaveIdlesWhatItDoesNotFill() {
        // 81 tiles of 128 × 128 on 80: two waves for 81 tiles' work; 64 × 128 tiles: 162 blocks, three waves
        double twoWaves = 81.0 / 160, threeWaves = 162.0 / 240;
        assertEquals(Math.max(twoWaves, threeWaves), new GemmTiling(128 * 9, 128 * 9, 4096).utilization(80), 1e-12);
    }

    @Test
    void aLongSumOverFewTilesIsSplitAcrossTheIdleMultiprocessors() {
        // 4 tiles of 128 × 128 split 20 ways fill 80 multiprocessors; unsplit they would fill 4
        GemmTiling filter = new GemmTiling(128 * 2, 128 * 2, 128 * 1000);
        assertEquals(1.0, filter.utilization(80), 1e-12);
        // a sum too short to split keeps the blocks its tiles give: 8 of 80 with 128 × 64 tiles
        assertEquals(8.0 / 80, new GemmTiling(128 * 2, 128 * 2, 100).utilization(80), 1e-12);
    }

    @Test
    void aNarrowProductPaysForTheTilesUnusedEdge() {
        // 50 output channels in a 64-wide tile: 50/64 of each block works, on one whole wave
        assertEquals(50.0 / 64, new GemmTiling(128 * 80, 50, 4096).utilization(80), 1e-12);
    }

    @Test
    void aConvolutionIsTiledAsItsImplicitProductAndAVectorProductIsNot() {
        ConvShape s = new ConvShape(256, 20, 13, 13, 50, 5, 5);
        GemmTiling forward =
                GemmTiling.of(new KernelOp.Conv2dForward(null, null, null, s)).orElseThrow();
        assertEquals(new GemmTiling(256L * 9 * 9, 50, 20 * 25), forward);
        GemmTiling data = GemmTiling.of(new KernelOp.Conv2dBackwardData(null, null, null, s))
                .orElseThrow();
        assertEquals(new GemmTiling(256L * 13 * 13, 20, 50 * 25), data);
        GemmTiling filter = GemmTiling.of(new KernelOp.Conv2dBackwardFilter(null, null, null, s))
                .orElseThrow();
        assertEquals(new GemmTiling(50, 20 * 25, 256L * 9 * 9), filter);
        assertTrue(GemmTiling.of(new KernelOp.Gemm(false, true, 1, 1, 4096, 1f, null, null, 0f, null))
                .isEmpty());
    }
}
