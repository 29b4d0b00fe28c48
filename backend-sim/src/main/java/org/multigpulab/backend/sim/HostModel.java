package org.multigpulab.backend.sim;

import org.multigpulab.device.StepPart;

/**
 * The notebook's host program, PyTorch from Python, as the host thread's seconds for each part of a step: per
 * device its shard's split, forward and loss ({@code forward}), {@code backward} (autograd's engine launching every
 * backward op) and {@code sgd}; per parameter the notebook's {@code allreduce}, plus a share for each device after
 * the first; and the {@code DataLoader}'s processor time per image (a PIL image, {@code ToTensor}, collation),
 * spent by worker processes on the machine's {@code cores} beside the host thread. All measured by
 * {@code scripts/pytorch-host.py} with Debian's python3-torch 1.13 on this lab's 2-core machine
 * (docs/ARCHITECTURE.md, "The notebook's host", has its output): processor time of one thread on shards of one
 * image, so that the arithmetic is small.
 *
 * <p>What the model leaves out: the processor's speed (Colab's is not this machine's), the kernels' own launches
 * (charged per launch by the profile), and the call of {@code torch.cuda.synchronize}, whose wait the timeline
 * already has.
 */
record HostModel(
        double forwardSec,
        double backwardSec,
        double sgdSec,
        double splitSec,
        double allReducePerParameterSec,
        double allReducePerPeerSec,
        double loaderPerImageSec,
        int cores) {

    static final String PYTORCH = "pytorch";

    private static final double US = 1e-6;

    /** scripts/pytorch-host.py's figures on this machine (the run in docs/ARCHITECTURE.md). */
    static final HostModel MEASURED =
            new HostModel(375.3 * US, 1511.9 * US, 164.7 * US, 2.3 * US, 2.4 * US, 9.7 * US, 53.5 * US, 2);

    /**
     * The host seconds the Python of step part {@code part} costs when device {@code device} of {@code devices}
     * begins it. The notebook's allreduce of one parameter is one call for all devices: device 0's range carries it.
     * DDP's reducer launches a bucket's allreduce from C++ inside the backward pass, and broadcasts buffers from
     * C++ too: no Python of their own, their kernels' launches charged per launch by the profile; so is the sum
     * across processes, which the notebook has none of.
     */
    double seconds(StepPart part, int device, int devices) {
        return switch (part) {
            case StepPart.Forward _ -> splitSec + forwardSec;
            case StepPart.Backward _ -> backwardSec;
            case StepPart.OptimizerStep _ -> sgdSec;
            case StepPart.ParameterAllReduce _ ->
                device == 0 ? allReducePerParameterSec + (devices - 1) * allReducePerPeerSec : 0;
            case StepPart.BucketAllReduce _,
                    StepPart.CrossProcessAllReduce _,
                    StepPart.BufferBroadcast _,
                    StepPart.GradientReduceScatter _,
                    StepPart.ParameterAllGather _ -> 0;
        };
    }

    /**
     * An epoch of {@code images} whose steps took {@code epochSec} with the host thread busy {@code hostSec} of it:
     * no faster than the data loader's workers and the host thread, sharing the cores, get through their work.
     */
    double epochSeconds(double epochSec, double hostSec, int images) {
        return Math.max(epochSec, (images * loaderPerImageSec + hostSec) / cores);
    }
}
