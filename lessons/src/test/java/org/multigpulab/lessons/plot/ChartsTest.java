package org.multigpulab.lessons.plot;

import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The charts' files, and that {@link PlotFilesCheck} fails on a chart that does not show the numbers. */
class ChartsTest {

    @TempDir
    Path dir;

    private final Curve test = new Curve("test acc").add(1, 0.1).add(2, 0.6).add(3, 0.75);
    private final Curve train = new Curve("train acc").add(1, 0.1).add(2, 0.4).add(3, 0.72);

    @Test
    void aLineChartsSvgCarriesItsValues() throws Exception {
        ChartFiles.save(Charts.lines("a chart", "epoch", "accuracy", List.of(test, train), true), dir, "curve");
        PlotFilesCheck.assertSeries(dir, "curve", List.of(test, train));
        Curve other = new Curve("test acc").add(1, 0.1).add(2, 0.5).add(3, 0.75);
        assertThrows(AssertionError.class, () -> PlotFilesCheck.assertSeries(dir, "curve", List.of(other, train)));
        assertThrows(AssertionError.class, () -> PlotFilesCheck.assertSeries(dir, "curve", List.of(train, test)));
        assertThrows(AssertionError.class, () -> PlotFilesCheck.assertSeries(dir, "curve", List.of(test)));
    }

    @Test
    void aBarChartsSvgCarriesItsHeights() throws Exception {
        Curve a = new Curve("a").add(1, 3).add(2, 5),
                b = new Curve("b").add(1, 2).add(2, 1);
        ChartFiles.save(Charts.bars("bars", "GPUs", "seconds", List.of(a, b)), dir, "bars");
        PlotFilesCheck.assertSeries(dir, "bars", List.of(a, b));
        Curve wrong = new Curve("b").add(1, 2).add(2, 1.5);
        assertThrows(AssertionError.class, () -> PlotFilesCheck.assertSeries(dir, "bars", List.of(a, wrong)));
    }

    @Test
    void anEmptyChartFails() {
        ChartFiles.save(Charts.lines("empty", "epoch", "accuracy", List.of(), true), dir, "empty");
        assertThrows(AssertionError.class, () -> PlotFilesCheck.assertChart(dir, "empty"));
    }
}
