package org.multigpulab.lessons.plot;

import java.nio.file.Path;
import java.util.List;
import org.multigpulab.core.train.TrainingListener;

/**
 * Seconds per epoch against the epoch: the wall time on this machine against the left axis and, on simulated
 * GPUs, the time the modelled GPUs would take against the right one (the two differ by orders of magnitude),
 * saved after every epoch into {@code NAME.png|svg}; a resumed run's chart starts with the epochs its checkpoint
 * had finished.
 */
public final class EpochTimes implements TrainingListener {

    private final LiveChart chart;
    private final Curve wall = new Curve("wall sec/epoch here");
    private final Curve simulated = new Curve("simulated sec/epoch (right axis)", Curve.YAxis.RIGHT);

    public EpochTimes(String title, Path dir, String name) {
        var xy = Charts.perEpoch(title, "wall seconds", false);
        xy.getStyler().setYAxisMin(0, 0.0);
        Charts.significantYLabels(xy);
        this.chart = new LiveChart(xy, dir, name, false);
    }

    @Override
    public void onStart(Start start) {
        chart.update(c -> Charts.epochAxis(c, start.epochs()));
        start.from().finished().forEach(this::onEpoch);
    }

    @Override
    public void onEpoch(EpochDone e) {
        wall.add(e.epoch(), e.wallSec());
        if (!Double.isNaN(e.simSec())) {
            simulated.add(e.epoch(), e.simSec());
        }
        chart.update(c -> {
            if (!simulated.isEmpty()) {
                Charts.rightAxis(c, "simulated seconds", Double.NaN);
            }
            List.of(wall, simulated).forEach(curve -> Charts.update(c, curve));
        });
    }
}
