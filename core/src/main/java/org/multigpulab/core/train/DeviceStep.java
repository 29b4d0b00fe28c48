package org.multigpulab.core.train;

import java.util.List;
import java.util.function.Consumer;
import org.multigpulab.core.autograd.BatchStatistics;
import org.multigpulab.core.autograd.Ops;
import org.multigpulab.core.autograd.Tape;
import org.multigpulab.core.autograd.Tensor;
import org.multigpulab.core.data.ImageShape;
import org.multigpulab.core.model.Mode;
import org.multigpulab.core.model.Model;
import org.multigpulab.core.parallel.Replica;
import org.multigpulab.core.parallel.Shard;
import org.multigpulab.device.Device;
import org.multigpulab.device.KernelOp.ArgmaxMatches;
import org.multigpulab.device.StepPart;

/**
 * One device's part of a training step: its shard of the batch, the tape of its forward pass, its logits and
 * summed loss. A device whose shard is empty (the batch ran out of chunks before it, as {@code torch.chunk} splits)
 * computes nothing: its gradients are zero, its loss and correct count 0. Closing it hands the step's buffers back
 * to the replica's workspace. Not thread-safe.
 */
final class DeviceStep implements AutoCloseable {

    private final Replica replica;
    private final Shard shard;
    private final ImageShape image;
    private Tape tape;
    private Tensor logits;
    private Tensor loss;

    DeviceStep(Replica replica, Shard shard, ImageShape image) {
        this.replica = replica;
        this.shard = shard;
        this.image = image;
    }

    Device device() {
        return replica.device();
    }

    int samples() {
        return shard.size();
    }

    /**
     * {@code loss(lenet(X_shard, device_W), y_shard)} for {@code model} in training mode, recorded on a new tape, its
     * BatchNorms' statistics summed by {@code statistics}.
     */
    void forwardAndLoss(Model model, BatchStatistics statistics) {
        if (shard.isEmpty()) {
            return;
        }
        try (Device.Range r = device().range(new StepPart.Forward())) {
            tape = Tape.training(replica.workspace(), statistics);
            Tensor x = Tensor.of(shard.x(), false, shard.size(), image.channels(), image.height(), image.width());
            logits = model.forward(tape, x, replica.params(), replica.buffers(), Mode.TRAIN); // [N, 10]
            loss = Ops.crossEntropySum(tape, logits, labels()); // [N], summed by backward
        }
    }

    /**
     * {@code l.backward()}, calling {@code hook} each time a parameter's gradient has received a contribution; with
     * {@code accumulate} adding to the gradients of the step's earlier micro-batches instead of overwriting them.
     */
    void backward(Consumer<Tensor> hook, boolean accumulate) {
        try (Device.Range r = device().range(new StepPart.Backward())) {
            if (shard.isEmpty()) {
                noGradients(hook, accumulate);
            } else {
                tape.backward(loss, hook, accumulate);
            }
        }
    }

    /**
     * {@link #backward} one recorded op at a time ({@link Pass#step}), for interleaving the devices' passes; the
     * device's range of the backward pass is open until the pass is closed.
     */
    Pass startBackward(Consumer<Tensor> hook, boolean accumulate) {
        Device.Range range = device().range(new StepPart.Backward());
        if (shard.isEmpty()) {
            return new Pass(range, null, () -> noGradients(hook, accumulate));
        }
        return new Pass(range, tape.backwardSteps(loss, hook, accumulate), null);
    }

    /** A device's backward pass under way: {@code steps} of a tape, or the one {@code instead} of a device without rows. */
    static final class Pass implements AutoCloseable {

        private final Device.Range range;
        private final Tape.Backward steps;
        private Runnable instead;

        private Pass(Device.Range range, Tape.Backward steps, Runnable instead) {
            this.range = range;
            this.steps = steps;
            this.instead = instead;
        }

        /** Runs the pass's next step; false when it has none left. */
        boolean step() {
            if (steps != null) {
                return steps.step();
            }
            if (instead == null) {
                return false;
            }
            instead.run();
            instead = null;
            return true;
        }

        @Override
        public void close() {
            if (steps != null) {
                steps.end();
            }
            range.close();
        }
    }

    /**
     * No rows, no loss: every gradient is zero (or, accumulating, stays what it was), delivered in the order a
     * backward pass delivers them (last first).
     */
    private void noGradients(Consumer<Tensor> hook, boolean accumulate) {
        List<Tensor> params = replica.params();
        for (int p = params.size() - 1; p >= 0; p--) {
            if (!accumulate) {
                params.get(p).zeroGrad();
            }
            hook.accept(params.get(p));
        }
    }

    /** The shard's summed loss, read from the device. */
    double lossSum() {
        if (shard.isEmpty()) {
            return 0;
        }
        float[] host = new float[shard.size()];
        device().download(loss.data().slice(0, shard.size()), host, 0);
        double s = 0;
        for (float v : host) {
            s += v;
        }
        return s;
    }

    /** How many of the shard's samples the logits classify right, counted on the device. */
    int correct() {
        if (shard.isEmpty()) {
            return 0;
        }
        return matches(tape, logits, labels());
    }

    private Tensor labels() {
        return Tensor.of(shard.y(), false, shard.size());
    }

    /** How many rows of {@code logits} have their largest value at the label's class, counted on the device. */
    static int matches(Tape tape, Tensor logits, Tensor labels) {
        Tensor count = tape.newTensor(false, 1);
        Device device = logits.device();
        device.kernels()
                .launch(new ArgmaxMatches(logits.data(), labels.data(), count.data(), logits.dim(0), logits.dim(1)));
        return Math.round(device.download(count.data())[0]);
    }

    @Override
    public void close() {
        if (tape != null) {
            tape.close();
        }
        if (!shard.isEmpty()) {
            replica.workspace().giveBack(shard.x());
            replica.workspace().giveBack(shard.y());
        }
    }
}
