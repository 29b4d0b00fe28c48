package org.multigpulab.backend.sim;

import org.multigpulab.device.StepPart;

/**
 * The notebook's host program, PyTorch from Python, as the host thread's seconds for each part of a step: per
 * device its shard's split, forward and loss ({@code forward}), {@code backward} (autograd's engine launching every
 * backward op) and {@code sgd}; per parameter the notebook's {@code allreduce}, plus a share for each device after
 * the first; and its {@code DataLoader}'s processor time per image: in its {@code workers} worker processes
 * (a PIL image, {@code ToTensor}, collation into shared memory, the workers' start) and on the host thread
 * (receiving the batches), on a processor of {@code cores}; and per replica {@code nn.DataParallel}'s own Python
 * ({@code replicate}'s module copies, {@code parallel_apply}'s thread). All measured by {@code scripts/pytorch-host.py}
 * with Debian's python3-torch 1.13 on {@link HostCpu#MEASURED} (docs/ARCHITECTURE.md, "The notebook's host", has
 * its output): processor time of one thread on shards of one image, so that the arithmetic is small; on another
 * processor, {@link #on} scales each figure by the two processors' single-thread ratings.
 *
 * <p>What the model leaves out: the kernels' own launches (charged per launch by the profile), and the call of
 * {@code torch.cuda.synchronize}, whose wait the timeline already has.
 */
record HostModel(
        HostCpu cpu,
        double forwardSec,
        double backwardSec,
        double sgdSec,
        double splitSec,
        double allReducePerParameterSec,
        double allReducePerPeerSec,
        double loaderWorkersPerImageSec,
        double loaderHostPerImageSec,
        int workers,
        double replicatePerReplicaSec,
        double threadPerReplicaSec,
        boolean dataParallel) {

    static final String PYTORCH = "pytorch";
    /** The same program with §12.6's {@code nn.DataParallel} around the model. */
    static final String PYTORCH_DATA_PARALLEL = "pytorch-dataparallel";

    private static final double US = 1e-6;

    /**
     * scripts/pytorch-host.py's figures on {@link HostCpu#MEASURED}, the means of two runs of
     * {@code /usr/bin/python3 -W ignore scripts/pytorch-host.py --images 60000} (docs/ARCHITECTURE.md); the
     * notebook's {@code d2l.get_dataloader_workers()} is 4. {@code nn.DataParallel}'s own Python, the means of two
     * runs of {@code scripts/pytorch-host.py --parts data-parallel}: 196.9 µs a replica for {@code replicate}'s
     * copies of §12.6's resnet18's 55 modules, 110.1 µs a replica for {@code parallel_apply}'s thread.
     */
    static final HostModel MEASURED = new HostModel(
            HostCpu.MEASURED,
            318.2 * US,
            601.0 * US,
            52.6 * US,
            2.8 * US,
            0.3 * US,
            3.9 * US,
            76.2 * US,
            8.2 * US,
            4,
            196.9 * US,
            110.1 * US,
            false);

    /** These figures on processor {@code other}: each scaled by the ratio of single-thread ratings. */
    HostModel on(HostCpu other) {
        double k = other.slowdown() / cpu.slowdown();
        return new HostModel(
                other,
                forwardSec * k,
                backwardSec * k,
                sgdSec * k,
                splitSec * k,
                allReducePerParameterSec * k,
                allReducePerPeerSec * k,
                loaderWorkersPerImageSec * k,
                loaderHostPerImageSec * k,
                workers,
                replicatePerReplicaSec * k,
                threadPerReplicaSec * k,
                dataParallel);
    }

    /**
     * The program with {@code nn.DataParallel} around the model, as §12.6 runs it: each batch moved with a blocking
     * {@code X.to(devices[0])}, which waits for the step before it (the timeline's in-stream upload), then
     * {@code replicate} and {@code parallel_apply} in the forward's Python, so that their time shows between steps.
     */
    HostModel withDataParallel() {
        return new HostModel(
                cpu,
                forwardSec,
                backwardSec,
                sgdSec,
                splitSec,
                allReducePerParameterSec,
                allReducePerPeerSec,
                loaderWorkersPerImageSec,
                loaderHostPerImageSec,
                workers,
                replicatePerReplicaSec,
                threadPerReplicaSec,
                true);
    }

    /**
     * The host seconds the Python of step part {@code part} costs when device {@code device} of {@code devices}
     * begins it. The notebook's allreduce of one parameter is one call for all devices: device 0's range carries it.
     * DDP's reducer launches a bucket's allreduce from C++ inside the backward pass, and broadcasts buffers from
     * C++ too: no Python of their own, their kernels' launches charged per launch by the profile; so is the sum
     * across processes, which the notebook has none of. {@code nn.DataParallel}'s forward on several devices runs
     * Python of its own first: {@code replicate}'s copies of the model's modules and {@code parallel_apply}'s thread,
     * for every replica (measured on §12.6's resnet18, so for another model an estimate); the rest of its reduce and
     * broadcast are C++ and kernels.
     */
    double seconds(StepPart part, int device, int devices) {
        return switch (part) {
            case StepPart.Forward _ ->
                splitSec
                        + forwardSec
                        + (dataParallel && device == 0 && devices > 1
                                ? devices * (replicatePerReplicaSec + threadPerReplicaSec)
                                : 0);
            case StepPart.Backward _ -> backwardSec;
            case StepPart.OptimizerStep _ -> sgdSec;
            case StepPart.ParameterAllReduce _ ->
                device == 0 ? allReducePerParameterSec + (devices - 1) * allReducePerPeerSec : 0;
            case StepPart.BucketAllReduce _,
                    StepPart.CrossProcessAllReduce _,
                    StepPart.BufferBroadcast _,
                    StepPart.GradientReduceScatter _,
                    StepPart.ParameterAllGather _,
                    StepPart.GradientReduce _,
                    StepPart.ParameterBroadcast _ -> 0;
        };
    }

    /**
     * An epoch of {@code images} whose steps took {@code epochSec} with the host thread busy {@code hostSec} of it:
     * the host thread also receives every batch; the workers produce them no faster than {@code workers} of them
     * at once, each on a processor of its own; and the workers and the host thread together get through no more
     * than the processor's cores hold.
     */
    double epochSeconds(double epochSec, double hostSec, int images) {
        double workersSec = images * loaderWorkersPerImageSec;
        double receiveSec = images * loaderHostPerImageSec;
        return Math.max(
                epochSec + receiveSec,
                Math.max(
                        workersSec / Math.min(workers, cpu.cores()),
                        (workersSec + receiveSec + hostSec) / cpu.cores()));
    }
}
