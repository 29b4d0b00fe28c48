package org.multigpulab.lessons.plot;

import java.awt.AWTError;
import java.awt.GraphicsEnvironment;
import java.awt.HeadlessException;
import java.awt.event.WindowAdapter;
import java.awt.event.WindowEvent;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.function.Consumer;
import java.util.function.Supplier;
import javax.swing.JFrame;
import javax.swing.SwingUtilities;
import org.knowm.xchart.XChartPanel;
import org.knowm.xchart.XYChart;
import org.multigpulab.lessons.errors.UserError;

/**
 * The notebook's {@code Animator}: a chart redrawn as points arrive, in a window when a display is present,
 * and saved as PNG and SVG after every redraw, so the files always hold the latest whole chart. A view given
 * (a notebook's display) is handed the chart after every redraw too.
 *
 * <p>An XChart chart is not thread-safe: painting it lays out its axes in fields of the chart, so a window
 * painting on Swing's event thread while training saves the files on its own thread garbles the tick labels and
 * the layout. With a window, every change, paint and save therefore runs on the event thread.
 */
public final class LiveChart {

    private final XYChart chart;
    private final Path dir;
    private final String name;
    private final CountDownLatch closed = new CountDownLatch(1);
    private final JFrame frame;
    private final Consumer<XYChart> view;

    /** A chart saved as {@code dir/name.png|svg}, shown live when {@code window} and a display is there. */
    public LiveChart(XYChart chart, Path dir, String name, boolean window) {
        this(chart, dir, name, window, c -> {});
    }

    /** As {@link #LiveChart(XYChart, Path, String, boolean)}, showing every redraw in {@code view} too. */
    public LiveChart(XYChart chart, Path dir, String name, boolean window, Consumer<XYChart> view) {
        this.chart = chart;
        this.dir = dir;
        this.name = name;
        this.view = view;
        this.frame = window && !GraphicsEnvironment.isHeadless() ? open() : null;
    }

    /** Applies {@code change} to the chart, redraws it and saves the files; returns the files. */
    public List<Path> update(Consumer<XYChart> change) {
        return onChartThread(() -> {
            change.accept(chart);
            if (frame != null) {
                frame.repaint();
            }
            view.accept(chart);
            return ChartFiles.save(chart, dir, name);
        });
    }

    /** Redraws with the current points of {@code curves} and saves the files. */
    public List<Path> redraw(List<Curve> curves) {
        return update(c -> curves.forEach(curve -> Charts.update(c, curve)));
    }

    /** Whether the chart is on screen. */
    public boolean shown() {
        return frame != null;
    }

    /** Waits until the student closes the window; returns at once when there is none. */
    public void awaitClosed() {
        if (frame == null) {
            return;
        }
        try {
            closed.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private JFrame open() {
        try {
            return onEventThread(() -> {
                JFrame f = new JFrame(chart.getTitle());
                f.setDefaultCloseOperation(JFrame.DISPOSE_ON_CLOSE);
                f.addWindowListener(new WindowAdapter() {
                    @Override
                    public void windowClosed(WindowEvent e) {
                        closed.countDown();
                    }
                });
                f.add(new XChartPanel<>(chart));
                f.pack();
                f.setVisible(true);
                return f;
            });
        } catch (AWTError | HeadlessException e) {
            // Java cannot draw at all once its display failed, not even the files: say what to change
            throw new UserError("cannot open the chart window on DISPLAY=" + System.getenv("DISPLAY") + " ("
                    + e.getMessage() + "); unset DISPLAY to train without a window");
        }
    }

    private <T> T onChartThread(Supplier<T> work) {
        return frame == null ? work.get() : onEventThread(work);
    }

    private static <T> T onEventThread(Supplier<T> work) {
        if (SwingUtilities.isEventDispatchThread()) {
            return work.get();
        }
        try {
            return CompletableFuture.supplyAsync(work, SwingUtilities::invokeLater)
                    .join();
        } catch (CompletionException e) {
            // the error the work threw (a UserError when the files cannot be written), not its wrapper
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            if (e.getCause() instanceof Error r) {
                throw r;
            }
            throw e;
        }
    }
}
