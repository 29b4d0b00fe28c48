package org.multigpulab.lessons.files;

import java.io.IOException;
import org.multigpulab.core.train.TrainingListener;

/**
 * For tests that kill a training run: named points of the run ({@code step 2/5}, {@code epoch 1}, {@code
 * checkpoint 2/6 half-written}, {@code checkpoint 2/6 written}) at which it can be made to stop and wait, so that a
 * kill lands exactly there rather than wherever a clock says. Off unless the system property {@value #PAUSE_AT}
 * is set; then every point reached is printed as {@code at POINT}, and at the point it names the run prints
 * {@code paused at POINT} and waits for its kill, or, should the test be gone (its standard input closes), halts.
 */
public final class KillPoints {

    /** The system property naming the point to pause at. */
    public static final String PAUSE_AT = "multigpulab.test.pause-at";

    private static final String PAUSE = System.getProperty(PAUSE_AT);

    private KillPoints() {}

    /** Whether a test asked for points; without it {@link #reach} does nothing. */
    public static boolean enabled() {
        return PAUSE != null;
    }

    /** Marks {@code point} reached, and waits there for ever if it is the one to pause at. */
    public static void reach(String point) {
        if (PAUSE == null) {
            return;
        }
        System.out.println("at " + point);
        if (point.equals(PAUSE)) {
            System.out.println("paused at " + point);
            System.out.flush();
            try {
                while (System.in.read() != -1) {
                    // the test writes nothing; the end of input means it has exited
                }
            } catch (IOException e) {
                // unreadable input is as good as closed
            }
            Runtime.getRuntime().halt(1);
        }
        System.out.flush();
    }

    /** Marks every step ({@code step E/B}) and every epoch's end ({@code epoch E}). */
    public static TrainingListener listener() {
        return new TrainingListener() {
            @Override
            public void onBatch(BatchDone b) {
                reach("step " + b.epoch() + "/" + b.batch());
            }

            @Override
            public void onEpoch(EpochDone e) {
                reach("epoch " + e.epoch());
            }
        };
    }
}
