package org.multigpulab.lessons.collectives;

import java.util.Locale;
import org.multigpulab.device.CollectiveCostModel.Collective;
import org.multigpulab.device.CollectiveCostModel.Estimate;

/**
 * One row of an nccl-tests sweep, its out-of-place half: bytes, elements, type, reduction, root, time in µs,
 * algorithm and bus bandwidth in GB/s, and the algorithm and protocol the time was computed for.
 */
public record PerfRow(
        long size,
        long count,
        String type,
        String redop,
        int root,
        double timeMicros,
        double algbw,
        double busbw,
        String algorithm,
        String protocol) {

    /** The header nccl-tests prints above its rows, for the columns this row has. */
    public static final String HEADER = """
            #       size         count      type   redop    root     time   algbw   busbw
            #        (B)    (elements)                               (us)  (GB/s)  (GB/s)""";

    /** The row for {@code op} over {@code size} bytes on {@code n} GPUs that took {@code estimate}. */
    public static PerfRow of(Collective op, int n, long size, Estimate estimate) {
        // all_gather_perf and reduce_scatter_perf count the elements one rank sends or keeps
        long count = size / Float.BYTES / (op == Collective.ALL_GATHER || op == Collective.REDUCE_SCATTER ? n : 1);
        // nothing moved in no time (0 bytes, or one GPU's in-place sum) reads 0 GB/s, as nccl-tests prints it
        double algbw = size == 0 || estimate.seconds() == 0 ? 0 : size / estimate.seconds() / 1e9;
        return new PerfRow(
                size,
                count,
                "float",
                op.reduces() ? "sum" : "none",
                op.rooted() ? 0 : -1,
                estimate.seconds() * 1e6,
                algbw,
                algbw * op.busBandwidthFactor(n),
                estimate.algorithm(),
                estimate.protocol());
    }

    /** The row as nccl-tests prints it, right-aligned in its columns. */
    public String line() {
        return String.format(
                Locale.ROOT,
                "%12d  %12d  %8s  %6s  %6d  %7s  %6.2f  %6.2f",
                size,
                count,
                type,
                redop,
                root,
                time(timeMicros),
                algbw,
                busbw);
    }

    /** nccl-tests' time: two decimals below 100 µs, one below 10 ms, none above. */
    private static String time(double micros) {
        return micros < 100
                ? String.format(Locale.ROOT, "%.2f", micros)
                : micros < 10_000
                        ? String.format(Locale.ROOT, "%.1f", micros)
                        : String.format(Locale.ROOT, "%.0f", micros);
    }
}
