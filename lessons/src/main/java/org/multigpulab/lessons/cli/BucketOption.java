package org.multigpulab.lessons.cli;

import org.multigpulab.lessons.errors.UserError;
import picocli.CommandLine.Option;

/** {@code --bucket-mb}, as {@code train} and {@code simulate} take it: gradients summed in buckets, or not. */
final class BucketOption {

    @Option(
            names = "--bucket-mb",
            paramLabel = "MB",
            description = "Sum gradients in buckets of at most MB megabytes, each as soon as it is ready, during the"
                    + " backward pass (PyTorch DDP's bucket_cap_mb). Default: every parameter after the backward pass,"
                    + " as the notebook does.")
    Double megabytes;

    /** A terabyte: more than any model here has, and far from where a size in bytes would overflow. */
    private static final double MAX_MB = 1e6;

    /** The bucket's capacity in bytes, 0 without buckets; a size that is not a positive number is the user's error. */
    long bytes() {
        if (megabytes == null) {
            return 0;
        }
        if (!(megabytes > 0 && megabytes <= MAX_MB)) {
            throw new UserError("--bucket-mb must be a number of megabytes above 0 and at most " + (long) MAX_MB
                    + " (a terabyte), such as 25, not " + megabytes);
        }
        return Math.round(megabytes * 1e6);
    }
}
