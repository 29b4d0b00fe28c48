package org.multigpulab.lessons.console;

import java.io.PrintStream;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;
import org.multigpulab.core.data.DataFetcher;

/** Shows the data download: a line per step, and a progress bar per file in bytes. */
public final class DownloadProgress implements DataFetcher.Progress {

    private final PrintStream err;
    private ProgressBar bar;

    public DownloadProgress(PrintStream err) {
        this.err = err;
    }

    @Override
    public void start(String file, long totalBytes) {
        bar = new ProgressBarBuilder()
                .setTaskName(file)
                .setInitialMax(Math.max(totalBytes, 0))
                .setUnit(" MB", 1 << 20)
                .showSpeed()
                .setStyle(ProgressBarStyle.ASCII)
                .build();
    }

    @Override
    public void advance(long bytes) {
        bar.stepBy(bytes);
    }

    @Override
    public void done() {
        bar.close();
    }

    @Override
    public void say(String line) {
        err.println(line);
    }
}
