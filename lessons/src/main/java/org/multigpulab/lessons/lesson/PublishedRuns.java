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
import java.util.function.ToDoubleFunction;

/**
 * The book's own printed runs of §12.5 and §12.6: 31 builds of d2l-pytorch-colab (2021-01 to 2023-08), each a
 * commit of that repository, 10 epochs each, as {@code d2l-published-runs.csv} beside this class lists them with
 * their source. A build that printed no GPU model in {@code nvidia-smi} has {@code gpu} "not printed".
 */
record PublishedRuns(List<Build> builds) {

    /** One build: its commit, date, d2l version, GPU, and §12.6's ResNet-18 seconds per epoch and test accuracy. */
    record Build(
            String commit,
            String date,
            String d2l,
            String gpu,
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
