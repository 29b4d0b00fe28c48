package org.multigpulab.lessons.plot;

import java.awt.EventQueue;
import java.awt.Frame;
import java.awt.Point;
import java.awt.Rectangle;
import java.awt.Robot;
import java.awt.event.WindowEvent;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;
import javax.imageio.ImageIO;
import javax.swing.JFrame;
import org.multigpulab.lessons.cli.Lab;

/**
 * Run by {@link TrainWindowTest} in a JVM of its own with a display: {@code ./lab train} as a student runs it; once
 * it says the window stays, a screenshot of the window's chart, then the window closed as a student closes it.
 * Prints whether the command was still waiting before the close and its exit status after.
 *
 * <p>Arguments: the screenshot's path, then {@code train}'s arguments.
 */
public final class TrainWindowShot {

    /** What {@code train} prints once training is done and the window stays. */
    static final String STAYS = "the learning curve stays on screen";

    /** A guard against a hang, not a measure: the test fails with the output so far if it runs out. */
    private static final long GIVE_UP_MS = 120_000;

    public static void main(String[] args) throws Exception {
        Path shot = Path.of(args[0]);
        Recorder printed = new Recorder(System.out);
        System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));
        AtomicInteger exit = new AtomicInteger(-1);
        Thread train = new Thread(() -> exit.set(Lab.commandLine().execute(Arrays.copyOfRange(args, 1, args.length))));
        train.start();
        long deadline = System.currentTimeMillis() + GIVE_UP_MS;
        while (!printed.text().contains(STAYS)) {
            if (!train.isAlive() || System.currentTimeMillis() > deadline) {
                System.err.println("train ended or hung without saying the window stays; exit " + exit.get());
                System.exit(3);
            }
            Thread.sleep(50);
        }
        JFrame frame = (JFrame) Arrays.stream(Frame.getFrames())
                .filter(Frame::isShowing)
                .findFirst()
                .orElseThrow();
        Robot robot = new Robot();
        robot.waitForIdle();
        Point at = frame.getContentPane().getLocationOnScreen();
        var size = frame.getContentPane().getSize();
        ImageIO.write(robot.createScreenCapture(new Rectangle(at, size)), "png", shot.toFile());
        Thread.sleep(200); // the command, told nothing, keeps waiting
        System.out.println("waiting before the close: " + train.isAlive());
        EventQueue.invokeLater(() -> frame.dispatchEvent(new WindowEvent(frame, WindowEvent.WINDOW_CLOSING)));
        train.join(GIVE_UP_MS);
        System.out.println("exit after the close: " + exit.get());
        System.exit(0);
    }

    /** Passes bytes on to {@code out} and keeps a copy to read. */
    private static final class Recorder extends OutputStream {
        private final PrintStream out;
        private final ByteArrayOutputStream copy = new ByteArrayOutputStream();

        Recorder(PrintStream out) {
            this.out = out;
        }

        @Override
        public synchronized void write(int b) {
            out.write(b);
            copy.write(b);
        }

        @Override
        public synchronized void write(byte[] b, int off, int len) {
            out.write(b, off, len);
            copy.write(b, off, len);
        }

        synchronized String text() {
            return copy.toString(StandardCharsets.UTF_8);
        }
    }
}
