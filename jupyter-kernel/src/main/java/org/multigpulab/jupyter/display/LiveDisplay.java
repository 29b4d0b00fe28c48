package org.multigpulab.jupyter.display;

import java.util.UUID;
import org.dflib.jjava.jupyter.kernel.DisplayStream;
import org.dflib.jjava.jupyter.kernel.display.DisplayData;

/**
 * One output area of a cell that is drawn again in place, as Jupyter's {@code display_id} allows: the first
 * {@link #show} adds it under the cell, each later one replaces it, also in a saved notebook. Thread-safe.
 */
public final class LiveDisplay {

    private final DisplayStream stream;
    private final String id = UUID.randomUUID().toString();
    private boolean shown;

    LiveDisplay(DisplayStream stream) {
        this.stream = stream;
    }

    /** Shows {@code value} (a chart as an image, else its text) in this display's place. */
    public synchronized void show(Object value) {
        DisplayData data = ChartImages.render(value, String.valueOf(value));
        data.setDisplayId(id);
        if (shown) {
            stream.updateDisplay(data);
        } else {
            stream.display(data);
            shown = true;
        }
    }
}
