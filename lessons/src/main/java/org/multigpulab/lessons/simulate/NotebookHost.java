package org.multigpulab.lessons.simulate;

import java.util.Locale;
import org.multigpulab.core.train.TrainResult;

/**
 * The line {@code train} prints of simulated GPUs' epoch with the notebook's own host program running them
 * (Python, PyTorch's dispatcher and autograd, its DataLoader: the sim backend's {@code host-model=pytorch}); on
 * one T4 over the notebook's full epoch, beside the notebook's own measurement.
 */
public final class NotebookHost {

    /** The notebook's sec/epoch on one Colab T4, from its closing line "test acc: 0.74, 4.4 sec/epoch on …". */
    private static final double NOTEBOOK_SEC_PER_EPOCH = 4.4;
    /** The notebook's steps per epoch: 60,000 images in batches of 256. */
    private static final int NOTEBOOK_STEPS = 235;

    private NotebookHost() {}

    /** What the host adds, beside the GPU-only seconds; on one T4 over the notebook's epoch, against its 4.4 s. */
    public static String line(TimeOnlyEpoch.Result withHost, double gpuOnlySec, int gpus) {
        String line = String.format(
                Locale.ROOT,
                "with the notebook's host (its Python, PyTorch's dispatcher and autograd, %s s; its DataLoader;"
                        + " scripts/pytorch-host.py): %s sec/epoch, GPUs alone %s",
                TrainResult.seconds(withHost.hostProgramSec()),
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
