package org.multigpulab.lessons.cli;

import org.multigpulab.core.parallel.GradientBuckets;
import org.multigpulab.lessons.errors.UserError;
import picocli.CommandLine.Option;

/** {@code --bucket-cap-mb}, as {@code train} and {@code simulate} take it: gradients summed in DDP's buckets, or not. */
final class BucketOption {

    @Option(
            names = {"--bucket-cap-mb", "--bucket-mb"},
            paramLabel = "MiB",
            description = "Sum gradients in buckets as PyTorch DDP makes them, each as soon as it is ready, during the"
                    + " backward pass: the first bucket 1 MiB, the others MiB mebibytes (DDP's bucket_cap_mb, whose"
                    + " default is 25), the parameters last first, a bucket closed once it holds its size or more."
                    + " Default: every parameter after the backward pass, as the notebook does.")
    Double megabytes;

    /** A tebibyte: more than any model here has, and far from where a size in bytes would overflow. */
    private static final double MAX_MIB = 1 << 20;

    /** The later buckets' size in bytes, 0 without buckets; a size that is not a positive number is the user's error. */
    long bytes() {
        if (megabytes == null) {
            return 0;
        }
        if (!(megabytes > 0 && megabytes <= MAX_MIB)) {
            throw new UserError("--bucket-cap-mb must be a number of mebibytes above 0 and at most " + (long) MAX_MIB
                    + " (a tebibyte), such as " + (long) GradientBuckets.DDP_DEFAULT_CAP_MIB + " (DDP's default), not "
                    + megabytes);
        }
        // DDP's int(bucket_cap_mb * 1024 * 1024) (torch/nn/parallel/distributed.py, PyTorch v2.4)
        return (long) (megabytes * (1 << 20));
    }
}
