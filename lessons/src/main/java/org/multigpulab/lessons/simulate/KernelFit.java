package org.multigpulab.lessons.simulate;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.multigpulab.core.model.Model;
import org.multigpulab.core.parallel.AllReduceAlgorithm;

/**
 * The two figures of the sim backend's kernel model that are fitted, on measured steps: the notebook's LeNet step
 * measured kernel by kernel on the project's first H200 at several shard sizes ({@code gpu-runs/h200-lenet-step.txt};
 * the rows of its calibration set fit them, those of its validation set judge them). They are the share of the FP32
 * rate that the GPU's kernels reach ({@code flops-share}) and the device's fixed time per kernel
 * ({@code kernel-us}). At a given share a simulated step's kernels take {@code a + n·t} for a fixed time {@code t}
 * ({@code n} the step's kernels), so two simulations give each shard's line; the fit is the pair that makes the
 * worst calibration row's error least (the measure the rows are judged by), each searched by golden sections
 * ({@link GoldenSection}).
 */
public record KernelFit(double flopsShare, double kernelSec, List<Row> rows) {

    /** One measured shard: the images a GPU steps on, its kernels' seconds, their launches; fitted on or judged by. */
    public record Shard(int batch, double kernelsSec, int launches, boolean calibration) {}

    /** A shard beside the simulated step's kernels at the fitted time. */
    public record Row(Shard shard, double simulatedSec) {

        /** Simulated over measured, less one. */
        public double error() {
            return simulatedSec / shard.kernelsSec() - 1;
        }
    }

    private static final String FILE = "/org/multigpulab/lessons/gpu-runs/h200-lenet-step.txt";
    /** The GPU the measurements ran on, as the sim backend names its profile. */
    public static final String PROFILE = "h200";

    /** The H200's measured shards, in the file's order. */
    public static List<Shard> h200() {
        return fileRows().stream()
                .filter(f -> !f[0].equals(EPOCH))
                .map(f -> new Shard(
                        Integer.parseInt(f[0]),
                        Double.parseDouble(f[1]) * 1e-6,
                        Integer.parseInt(f[2]),
                        f[4].equals("calibration")))
                .toList();
    }

    /** The notebook's measured seconds per epoch on the H200, the least and the most. */
    public static double[] h200EpochSec() {
        String[] f =
                fileRows().stream().filter(r -> r[0].equals(EPOCH)).findFirst().orElseThrow();
        return new double[] {Double.parseDouble(f[1]), Double.parseDouble(f[2])};
    }

    private static final String EPOCH = "epoch_sec";

    private static List<String[]> fileRows() {
        try (InputStream in = KernelFit.class.getResourceAsStream(FILE)) {
            return new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))
                    .lines()
                    .map(String::strip)
                    .filter(l -> !l.isEmpty() && !l.startsWith("#"))
                    .map(l -> l.split("\\s+"))
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The figures that fit {@code shards}' calibration rows best, and every row at them. */
    public static KernelFit of(List<Shard> shards) {
        double share = GoldenSection.minimum(
                s -> {
                    Lines at = atShare(shards, s);
                    return at.worst(at.bestKernelSec());
                },
                0.05,
                1,
                1e-4);
        Lines best = atShare(shards, share);
        double kernelSec = best.bestKernelSec();
        List<Row> rows = new ArrayList<>();
        for (int i = 0; i < shards.size(); i++) {
            rows.add(new Row(shards.get(i), best.seconds(i, kernelSec)));
        }
        return new KernelFit(share, kernelSec, List.copyOf(rows));
    }

    /** Each shard's line {@code {a, n}} at one share: its kernels' seconds at a fixed time {@code t} a kernel. */
    private record Lines(List<Shard> shards, List<double[]> lines) {

        double seconds(int i, double t) {
            return lines.get(i)[0] + lines.get(i)[1] * t;
        }

        /** The worst calibration row's error at a fixed time {@code t} a kernel. */
        double worst(double t) {
            double worst = 0;
            for (int i = 0; i < shards.size(); i++) {
                if (shards.get(i).calibration()) {
                    worst = Math.max(
                            worst, Math.abs(seconds(i, t) / shards.get(i).kernelsSec() - 1));
                }
            }
            return worst;
        }

        /** The fixed time a kernel, 0 to 50 µs, whose worst calibration error is least. */
        double bestKernelSec() {
            return GoldenSection.minimum(this::worst, 0, 50e-6, 1e-10);
        }
    }

    /** Each shard's line at {@code share}, from two simulations of its step. */
    private static Lines atShare(List<Shard> shards, double share) {
        String s = Double.toString(share);
        List<double[]> lines = shards.stream()
                .map(shard -> {
                    double none = stepKernelsSec(shard.batch(), Map.of("flops-share", s, "kernel-us", "0"));
                    double one = stepKernelsSec(shard.batch(), Map.of("flops-share", s, "kernel-us", "1"));
                    return new double[] {none, (one - none) / 1e-6};
                })
                .toList();
        return new Lines(shards, lines);
    }

    /** The fit as a table for people: the figures, then each shard measured and simulated. */
    public String table() {
        StringBuilder t = new StringBuilder(String.format(
                Locale.ROOT,
                "fitted on the calibration shards: %.3f of the FP32 rate, %.2f µs a kernel%n"
                        + "shard   set          measured  launches  simulated  error%n",
                flopsShare,
                kernelSec * 1e6));
        for (Row row : rows) {
            t.append(String.format(
                    Locale.ROOT,
                    "%5d   %-11s  %5.0f µs  %8d  %6.0f µs  %+5.1f %%%n",
                    row.shard().batch(),
                    row.shard().calibration() ? "calibration" : "validation",
                    row.shard().kernelsSec() * 1e6,
                    row.shard().launches(),
                    row.simulatedSec() * 1e6,
                    100 * row.error()));
        }
        return t.toString();
    }

    /** The simulated step's kernels at the sim's own fixed time per kernel. */
    public static double simulatedSec(Shard shard) {
        return stepKernelsSec(shard.batch(), Map.of());
    }

    /** The seconds of one simulated step's kernels on one GPU at {@code batch} images. */
    private static double stepKernelsSec(int batch, Map<String, String> options) {
        int steps = 4;
        TimeOnlyEpoch.Setup setup = new TimeOnlyEpoch.Setup(
                1,
                1,
                PROFILE,
                null,
                null,
                Model.named("lenet"),
                batch,
                steps * batch,
                AllReduceAlgorithm.NAIVE,
                0,
                false);
        TimeOnlyEpoch.Result r = TimeOnlyEpoch.run(setup, null, options);
        return r.gpus().getFirst().computeSec() / r.steps();
    }
}
