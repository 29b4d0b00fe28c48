package org.multigpulab.lessons.plot;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ChartsTest {

    @TempDir
    Path dir;

    @Test
    void writesANonBlankPngAndAValidSvg() throws Exception {
        Curve a = new Curve("test acc").add(1, 0.1).add(2, 0.6).add(3, 0.75);
        Curve b = new Curve("train acc").add(1, 0.1).add(2, 0.4).add(3, 0.72);
        ChartFiles.save(Charts.lines("a chart", "epoch", "accuracy", List.of(a, b), true), dir, "curve");
        PlotFilesCheck.assertChart(dir, "curve");
    }
}
