package org.multigpulab.lessons.simulate;

import java.util.Locale;
import org.multigpulab.core.train.TrainResult;

/**
 * The line {@code train} prints of simulated GPUs' epoch with the notebook's own host program running them
 * (Python, PyTorch's dispatcher and autograd, its DataLoader: the sim backend's {@code host-model=pytorch}); on
 * one T4 over the notebook's full epoch, beside the notebook's own measurement, the host on Colab's processor.
 *
 * <p>The notebook's run (pyprobml's Colab, 5 epochs, 4 DataLoader workers) names no GPU. A T4 is taken, the GPU
 * Colab's free runtime mostly gave then; the figure hardly depends on it, as on Colab's 2 vCPUs the DataLoader's
 * workers bound the epoch (a simulated V100 gives the same 5.0 s as a T4).
 */
public final class NotebookHost {

    /** The notebook's sec/epoch on one Colab T4, from its closing line "test acc: 0.74, 4.4 sec/epoch on …". */
    private static final double NOTEBOOK_SEC_PER_EPOCH = 4.4;
    /** The notebook's steps per epoch: 60,000 images in batches of 256. */
    private static final int NOTEBOOK_STEPS = 235;

    /** Colab's processor of the day ({@code HostCpu} in the sim backend), where the notebook ran. */
    private static final String COLAB_HOST = "colab-broadwell";

    private NotebookHost() {}

    /** The processor the notebook's host runs on for GPUs of {@code profile}: Colab's for its T4, else null. */
    public static String hostCpu(String profile) {
        return profile.equalsIgnoreCase("t4") ? COLAB_HOST : null;
    }

    /** What the host adds, beside the GPU-only seconds; on one T4 over the notebook's epoch, against its 4.4 s. */
    public static String line(TimeOnlyEpoch.Result withHost, double gpuOnlySec, int gpus) {
        String line = String.format(
                Locale.ROOT,
                "with the notebook's host (its Python, PyTorch's dispatcher and autograd, %s s; its DataLoader;"
                        + " scripts/pytorch-host.py%s): %s sec/epoch, GPUs alone %s",
                TrainResult.seconds(withHost.hostProgramSec()),
                withHost.description().contains("T4") ? "; on Colab's 2 vCPUs of a Broadwell Xeon" : "",
                TrainResult.seconds(withHost.withDataLoaderSec()),
                TrainResult.seconds(gpuOnlySec));
        boolean asTheNotebook =
                gpus == 1 && withHost.description().contains("T4") && withHost.steps() == NOTEBOOK_STEPS;
        if (!asTheNotebook) {
            return line;
        }
        return line
                + String.format(
                        Locale.ROOT,
                        "; the notebook measured %.1f on one T4: %+.0f%%",
                        NOTEBOOK_SEC_PER_EPOCH,
                        100 * (withHost.withDataLoaderSec() / NOTEBOOK_SEC_PER_EPOCH - 1));
    }
}
