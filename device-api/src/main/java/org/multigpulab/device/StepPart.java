package org.multigpulab.device;

/**
 * What part of a training step a {@link Device#range} of work is, as the trainer names it to the device: a backend
 * that records a trace shows the range by its {@link #name()}, and a cost model of the host's program ({@code sim}'s
 * model of the notebook's Python) charges each part by its kind, in one exhaustive switch.
 */
public sealed interface StepPart {

    /** Its name in traces: {@code forward}, {@code allreduce W1}, {@code allreduce bucket 0}. */
    String name();

    /** A device's shard: split off the batch, forward pass and loss. */
    record Forward() implements StepPart {
        public String name() {
            return "forward";
        }
    }

    /** A device's backward pass. */
    record Backward() implements StepPart {
        public String name() {
            return "backward";
        }
    }

    /** The optimizer's update of a replica's parameters. */
    record OptimizerStep(String optimizer) implements StepPart {
        public String name() {
            return optimizer;
        }
    }

    /** The sum over the devices of one parameter's gradient, as the notebook's {@code allreduce} makes it. */
    record ParameterAllReduce(String parameter) implements StepPart {
        public String name() {
            return "allreduce " + parameter;
        }
    }

    /** The sum over the devices of a bucket of gradients, as DDP's reducer launches it during the backward pass. */
    record BucketAllReduce(int bucket) implements StepPart {
        public String name() {
            return "allreduce bucket " + bucket;
        }
    }

    /** The sum of gradients across {@code processes} processes (MPI ranks). */
    record CrossProcessAllReduce(int processes) implements StepPart {
        public String name() {
            return "allreduce across " + processes + " processes";
        }
    }

    /** Device 0's buffers copied to the other replicas before a training forward pass (DDP's broadcast_buffers). */
    record BufferBroadcast() implements StepPart {
        public String name() {
            return "broadcast buffers";
        }
    }

    /** A chunk of the summed gradients left on each device (ZeRO stages 2 and 3), over the devices and processes. */
    record GradientReduceScatter() implements StepPart {
        public String name() {
            return "reduce-scatter gradients";
        }
    }

    /**
     * Every device's chunk of the parameters copied to all devices and processes (ZeRO): after the update (stages 1
     * and 2), or before a forward or backward pass (stage 3), which {@code before} names.
     */
    record ParameterAllGather(String before) implements StepPart {
        public String name() {
            return "all-gather parameters for " + before;
        }
    }

    /** Every replica's gradients reduce-added onto device 0 ({@code nn.DataParallel}'s backward of its broadcast). */
    record GradientReduce() implements StepPart {
        public String name() {
            return "reduce gradients onto device 0";
        }
    }

    /** Device 0's parameters copied to the other replicas ({@code nn.DataParallel}'s {@code replicate}). */
    record ParameterBroadcast() implements StepPart {
        public String name() {
            return "broadcast parameters";
        }
    }
}
