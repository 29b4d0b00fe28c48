package org.multigpulab.lessons.lesson;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.ToDoubleFunction;

/**
 * The book's own printed runs of §12.5 and §12.6: 31 builds of d2l-pytorch-colab (2021-01 to 2023-08), each a
 * commit of that repository, 10 epochs each, as {@code d2l-published-runs.csv} beside this class lists them with
 * their source. A build that printed no GPU model in {@code nvidia-smi} has {@code gpu} "not printed".
 */
public record PublishedRuns(List<Build> builds) {

    /**
     * One build: its commit, date, d2l version, GPU, §12.5's LeNet seconds per epoch on 1 and 2 GPUs, and §12.6's
     * ResNet-18 seconds per epoch and test accuracy.
     */
    record Build(
            String commit,
            String date,
            String d2l,
            String gpu,
            double lenet1GpuSec,
            double lenet2GpuSec,
            double resnet1GpuSec,
            double resnet1GpuAcc,
            double resnet2GpuSec,
            double resnet2GpuAcc) {}

    private static final String FILE = "d2l-published-runs.csv";

    /** Where the figures come from, for a lesson's printout. */
    static final String SOURCE = "d2l-pytorch-colab, chapter_computational-performance/multiple-gpus-concise.ipynb,"
            + " 31 builds 2021-01 to 2023-08";

    static PublishedRuns load() {
        try (InputStream in = PublishedRuns.class.getResourceAsStream(FILE)) {
            if (in == null) {
                throw new IllegalStateException(FILE + " is missing from the lessons' resources");
            }
            BufferedReader lines = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
            List<Build> builds = new ArrayList<>();
            List<String> header = null;
            for (String line; (line = lines.readLine()) != null; ) {
                if (line.startsWith("#") || line.isBlank()) {
                    continue;
                }
                List<String> cells = Arrays.asList(line.split(","));
                if (header == null) {
                    header = cells;
                    continue;
                }
                List<String> h = header;
                builds.add(new Build(
                        cells.get(h.indexOf("commit")),
                        cells.get(h.indexOf("date")),
                        cells.get(h.indexOf("d2l")),
                        cells.get(h.indexOf("gpu")),
                        Double.parseDouble(cells.get(h.indexOf("lenet_1gpu_sec"))),
                        Double.parseDouble(cells.get(h.indexOf("lenet_2gpu_sec"))),
                        Double.parseDouble(cells.get(h.indexOf("resnet18_1gpu_sec"))),
                        Double.parseDouble(cells.get(h.indexOf("resnet18_1gpu_acc"))),
                        Double.parseDouble(cells.get(h.indexOf("resnet18_2gpu_sec"))),
                        Double.parseDouble(cells.get(h.indexOf("resnet18_2gpu_acc")))));
            }
            return new PublishedRuns(List.copyOf(builds));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The book's sec/epoch on V100s for a setting it ran: {@code section} and {@code source} name where it comes
     * from, {@code low} to {@code high} over the builds, their {@code median}.
     */
    public record Range(String section, String source, int builds, double low, double high, double median) {

        /** {@code §12.5 on V100-SXM2 (28 builds of …): 2.1–4.1 sec/epoch (median 2.5)}. */
        public String describe() {
            return String.format(
                    Locale.ROOT,
                    "%s on V100-SXM2 (%d builds of %s): %.1f–%.1f sec/epoch (median %.1f)",
                    section,
                    builds,
                    source,
                    low,
                    high,
                    median);
        }

        public boolean holds(double secPerEpoch) {
            return secPerEpoch >= low && secPerEpoch <= high;
        }
    }

    /**
     * The book's V100 runs of the setting {@code model} ({@code lenet}: §12.5, the notebook, global batch 256;
     * {@code resnet18}: §12.6, batch 256 per GPU) on {@code gpus} GPUs at global batch {@code batchSize}; empty
     * for any setting the book did not run.
     */
    public static Optional<Range> forSetting(String model, int gpus, int batchSize) {
        ToDoubleFunction<Build> figure;
        String section;
        String notebook;
        if (model.equals("lenet") && batchSize == 256 && (gpus == 1 || gpus == 2)) {
            figure = gpus == 1 ? Build::lenet1GpuSec : Build::lenet2GpuSec;
            section = "§12.5 (LeNet, batch 256, " + gpus + " GPU" + (gpus == 1 ? ")" : "s)");
            notebook = "multiple-gpus.ipynb";
        } else if (model.equals("resnet18") && batchSize == 256 * gpus && (gpus == 1 || gpus == 2)) {
            figure = gpus == 1 ? Build::resnet1GpuSec : Build::resnet2GpuSec;
            section = "§12.6 (ResNet-18, nn.DataParallel, batch " + batchSize + ", " + gpus + " GPU"
                    + (gpus == 1 ? ")" : "s)");
            notebook = "multiple-gpus-concise.ipynb";
        } else {
            return Optional.empty();
        }
        PublishedRuns v100 = load().onV100();
        double[] values = v100.builds.stream().mapToDouble(figure).sorted().toArray();
        return Optional.of(new Range(
                section,
                "d2l-pytorch-colab, chapter_computational-performance/" + notebook,
                values.length,
                values[0],
                values[values.length - 1],
                v100.median(figure)));
    }

    /** The builds that printed a V100 in {@code nvidia-smi}. */
    PublishedRuns onV100() {
        return new PublishedRuns(
                builds.stream().filter(b -> b.gpu().contains("V100")).toList());
    }

    /** {@code 13.6–16.1 (median 14.0)} of a figure over the builds. */
    String range(ToDoubleFunction<Build> figure, String format) {
        double[] values = builds.stream().mapToDouble(figure).sorted().toArray();
        return String.format(
                Locale.ROOT,
                format + "–" + format + " (median " + format + ")",
                values[0],
                values[values.length - 1],
                median(figure));
    }

    /** The median of a figure over the builds. */
    double median(ToDoubleFunction<Build> figure) {
        double[] values = builds.stream().mapToDouble(figure).sorted().toArray();
        int n = values.length;
        return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
    }

    /** The last build (d2l 1.0.3, 2023-08). */
    Build last() {
        return builds.getLast();
    }
}
