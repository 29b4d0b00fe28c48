package org.multigpulab.backend.sim;

import java.util.Optional;
import org.multigpulab.device.ConvShape;
import org.multigpulab.device.KernelOp;

/**
 * A convolution or a matrix product as a cuDNN-class library runs it on a GPU: one matrix product of {@code m × n}
 * outputs, each a sum of {@code k} products (a convolution as an implicit GEMM), cut into tiles of outputs, a
 * thread block each, every multiprocessor running one block at a time. For the shape, the library takes the tile
 * that finishes first among CUTLASS's SIMT SGEMM tiles of 4 warps or more, which keep a multiprocessor's 4
 * schedulers busy on their own ({@code tools/library/scripts/generator.py}, {@code GenerateSM50_Simt}: 128 × 128
 * with 8 warps, 128 × 64 and 64 × 128 with 4; its 2-warp tiles, 64 × 64, 128 × 32 and 32 × 128, are left out: with
 * them the H200's check shard came out at −11 % instead of −6 %), and where the tiles alone leave multiprocessors
 * idle it splits each tile's sum over several blocks (split-K, as cuDNN's filter gradients do), slices no shorter
 * than {@link #MIN_SLICE}. What the product costs is the blocks' arithmetic: the last wave's idle multiprocessors and
 * each tile's unused edge are paid for, so that a narrow or a small product gets a fraction of the GPU's rate,
 * {@link #utilization}. A product of fewer than {@link #MIN_SIDE} rows or columns is not tiled: it is a
 * matrix–vector product in all but name (cuBLAS runs such as {@code gemv} or a dot product), bound by its memory.
 */
record GemmTiling(long m, long n, long k) {

    private static final int[][] TILES = {{128, 128}, {128, 64}, {64, 128}};
    static final int MIN_SIDE = 16;
    /** The shortest slice of a sum split over blocks: 16 steps of a SIMT tile's 8 products. */
    static final int MIN_SLICE = 128;

    /** The tiled matrix product that {@code call} is, if it is one. */
    static Optional<GemmTiling> of(KernelOp.Call call) {
        return product(call).filter(g -> Math.min(g.m, g.n) >= MIN_SIDE);
    }

    private static Optional<GemmTiling> product(KernelOp.Call call) {
        return switch (call) {
            case KernelOp.Conv2dForward c -> {
                ConvShape s = c.s();
                yield Optional.of(
                        new GemmTiling((long) s.batch() * s.outHeight() * s.outWidth(), s.outChannels(), taps(s)));
            }
            case KernelOp.Conv2dBackwardData c -> {
                ConvShape s = c.s();
                long inputs = (long) s.batch() * s.height() * s.width();
                yield Optional.of(new GemmTiling(
                        inputs, s.inChannels(), (long) s.outChannels() * s.kernelHeight() * s.kernelWidth()));
            }
            case KernelOp.Conv2dBackwardFilter c -> {
                ConvShape s = c.s();
                yield Optional.of(
                        new GemmTiling(s.outChannels(), taps(s), (long) s.batch() * s.outHeight() * s.outWidth()));
            }
            case KernelOp.Gemm g -> Optional.of(new GemmTiling(g.m(), g.n(), g.k()));
            default -> Optional.empty();
        };
    }

    private static long taps(ConvShape s) {
        return (long) s.inChannels() * s.kernelHeight() * s.kernelWidth();
    }

    /** The share of {@code multiprocessors}' arithmetic that the fastest tiling of this product puts to use. */
    double utilization(int multiprocessors) {
        double best = 0;
        for (int[] tile : TILES) {
            long tiles = Math.ceilDiv(m, tile[0]) * Math.ceilDiv(n, tile[1]);
            long split = tiles >= multiprocessors ? 1 : Math.max(1, Math.min(multiprocessors / tiles, k / MIN_SLICE));
            long waves = Math.ceilDiv(tiles * split, multiprocessors);
            double paid = (double) waves * multiprocessors * tile[0] * tile[1] * Math.ceilDiv(k, split);
            best = Math.max(best, (double) m * n * k / paid);
        }
        return best;
    }
}
