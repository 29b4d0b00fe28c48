package org.multigpulab.core.autograd;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.multigpulab.device.Buffer;
import org.multigpulab.device.KernelOp.Add;
import org.multigpulab.device.Kernels;

/**
 * A reverse-mode autograd tape for one device and one step: {@link Ops} record a backward step next to each
 * forward step, and {@link #backward(Tensor)} runs them in reverse order. Its {@link FusionPlanner} decides which
 * fused kernels the recorded ops run; read the data of a tensor an op returned through {@link #data}.
 *
 * <p>The tape owns the step's activations and their gradients, taken from a {@link Workspace} and handed back
 * on {@link #close()}. Parameter gradients persist in their tensors; the first contribution of a pass
 * overwrites them, so there is nothing to zero between steps (unless the pass is told to add to them). A tape made by {@link #inference} records no
 * backward steps. Not thread-safe.
 */
public final class Tape implements AutoCloseable {

    private final Workspace workspace;
    private final boolean recording;
    private final List<Runnable> backwardSteps = new ArrayList<>();
    /** The output each backward step takes the gradient of, index for index. */
    private final List<Tensor> stepOutputs = new ArrayList<>();

    private final List<Buffer> owned = new ArrayList<>();
    private final Set<Tensor> stepTensors = Collections.newSetFromMap(new IdentityHashMap<>());
    private final Set<Tensor> gradWritten = Collections.newSetFromMap(new IdentityHashMap<>());
    private Tensor loss;
    private Consumer<Tensor> onParameterGradient = t -> {};
    private boolean addToParameterGradients;
    private final FusionPlanner planner;
    private final BatchStatistics statistics;

    private Tape(Workspace workspace, boolean recording, BatchStatistics statistics) {
        this.workspace = workspace;
        this.recording = recording;
        this.statistics = statistics;
        this.planner = new FusionPlanner(kernels());
    }

    /** A tape that records backward steps, for training; BatchNorm's statistics are this device's own. */
    public static Tape training(Workspace workspace) {
        return training(workspace, BatchStatistics.LOCAL);
    }

    /** A tape that records backward steps, for training, BatchNorm's statistics summed by {@code statistics}. */
    public static Tape training(Workspace workspace, BatchStatistics statistics) {
        return new Tape(workspace, true, statistics);
    }

    /** A tape that records nothing, for evaluation. */
    public static Tape inference(Workspace workspace) {
        return new Tape(workspace, false, BatchStatistics.LOCAL);
    }

    /** Over which devices BatchNorm's statistics are summed in this tape's passes. */
    BatchStatistics statistics() {
        return statistics;
    }

    Kernels kernels() {
        return workspace.device().kernels();
    }

    /** Which fused kernels the ops recorded on this tape run. */
    FusionPlanner planner() {
        return planner;
    }

    /** {@code t}'s data, written first if the op that returned it was deferred for fusion. */
    public Buffer data(Tensor t) {
        planner.write(t);
        return t.data();
    }

    /** A step-lived tensor of the given shape; its contents are unspecified until a kernel writes it. */
    public Tensor newTensor(boolean requiresGrad, int... shape) {
        int size = 1;
        for (int d : shape) {
            size *= d;
        }
        Buffer buffer = workspace.take(size);
        owned.add(buffer);
        Tensor t = new Tensor(buffer, shape, recording && requiresGrad, null);
        stepTensors.add(t);
        return t;
    }

    /** Records the backward step of an op whose output needs a gradient. */
    void record(Tensor output, Runnable backwardStep) {
        if (recording && output.requiresGrad()) {
            backwardSteps.add(backwardStep);
            stepOutputs.add(output);
        }
    }

    void markLoss(Tensor lossOutput) {
        this.loss = lossOutput;
    }

    /**
     * Adds a contribution to {@code t}'s gradient: {@code writer} writes it into the buffer it is given. The
     * first contribution in a pass goes straight into the gradient; later ones into a temporary that is added.
     */
    void accumulateGrad(Tensor t, Consumer<Buffer> writer) {
        if (!t.root().requiresGrad()) {
            return;
        }
        Buffer into = gradTarget(t);
        writer.accept(into);
        added(t, into);
    }

    /**
     * Adds contributions to two tensors' gradients that one call writes, as {@link #accumulateGrad} adds one's;
     * where one of them needs no gradient, its buffer is a temporary whose contents are dropped.
     */
    void accumulateGrads(Tensor a, Tensor b, BiConsumer<Buffer, Buffer> writer) {
        Buffer intoA = gradTarget(a), intoB = gradTarget(b);
        writer.accept(intoA, intoB);
        added(a, intoA);
        added(b, intoB);
    }

    /** Where a contribution to {@code t}'s gradient is written: the gradient itself if none was yet this pass. */
    private Buffer gradTarget(Tensor t) {
        Tensor root = t.root();
        boolean keep = addToParameterGradients && root.grad() != null && !stepTensors.contains(root);
        if (!root.requiresGrad() || gradWritten.contains(root) || keep) {
            Buffer temporary = workspace.take(root.size());
            owned.add(temporary);
            return temporary;
        }
        if (root.grad() == null) {
            // A step tensor's gradient dies with the step; a parameter's is its own, kept across steps.
            boolean parameter = !stepTensors.contains(root);
            Buffer grad = !parameter
                    ? workspace.take(root.size())
                    : root.reservedGrad() != null
                            ? root.reservedGrad()
                            : root.device().allocate(root.size());
            if (!parameter) {
                owned.add(grad);
            }
            root.setGrad(grad);
        }
        return root.grad();
    }

    /** Completes a contribution written into {@code into}: added to the gradient if it went to a temporary. */
    private void added(Tensor t, Buffer into) {
        Tensor root = t.root();
        if (!root.requiresGrad()) {
            giveBack(into); // a temporary whose contents are dropped
            return;
        }
        if (into == root.grad()) {
            gradWritten.add(root);
        } else {
            kernels().launch(new Add(root.grad(), into, root.grad(), root.size()));
            giveBack(into);
        }
        if (!stepTensors.contains(root)) {
            onParameterGradient.accept(root);
        }
    }

    /**
     * After the backward step of {@code output}, its gradient is dead: every contribution to it came from the ops
     * that read it, recorded later and so stepped back through earlier, and its own step has read it. Handing it back
     * to the workspace at once, as PyTorch's autograd frees a gradient once its node has run, lets the next gradient
     * of that size reuse it, so a pass holds a few activation gradients at a time rather than all of them.
     */
    private void releaseGrad(Tensor output) {
        Buffer grad = output.grad();
        if (output.root() == output && grad != null && stepTensors.contains(output)) {
            output.setGrad(null);
            giveBack(grad);
        }
    }

    /** Hands one of the step's buffers back to the workspace before the step ends. */
    private void giveBack(Buffer buffer) {
        owned.remove(buffer);
        workspace.giveBack(buffer);
    }

    /** Whether a contribution to {@code t}'s gradient has been made in the running backward pass. */
    boolean hasGrad(Tensor t) {
        return gradWritten.contains(t.root());
    }

    /**
     * Back-propagates from {@code lossOutput}, which must be what {@link Ops#crossEntropySum} returned on this
     * tape: afterwards every parameter used holds the gradient of the summed loss.
     */
    public void backward(Tensor lossOutput) {
        backward(lossOutput, t -> {});
    }

    /**
     * {@link #backward(Tensor)}, calling {@code onParameterGradient} each time a contribution has been added to a
     * parameter's gradient, as PyTorch's gradient hooks do; data-parallel training starts sending gradients
     * from there while the pass goes on.
     */
    public void backward(Tensor lossOutput, Consumer<Tensor> onParameterGradient) {
        backward(lossOutput, onParameterGradient, false);
    }

    /**
     * {@link #backward(Tensor, Consumer)}; with {@code addToParameterGradients} the pass adds to the gradients the
     * parameters hold instead of overwriting them, as PyTorch's {@code backward} always does: gradient
     * accumulation over micro-batches.
     */
    public void backward(Tensor lossOutput, Consumer<Tensor> onParameterGradient, boolean addToParameterGradients) {
        Backward pass = backwardSteps(lossOutput, onParameterGradient, addToParameterGradients);
        try {
            while (pass.step()) {
                // each step runs one recorded op's backward
            }
        } finally {
            pass.end();
        }
    }

    /**
     * {@link #backward(Tensor, Consumer, boolean)} one recorded op at a time, for a caller that interleaves the
     * backward passes of several devices (ZeRO reduce-scatters a bucket as soon as every device has it).
     */
    public Backward backwardSteps(
            Tensor lossOutput, Consumer<Tensor> onParameterGradient, boolean addToParameterGradients) {
        if (!recording) {
            throw new IllegalStateException("an inference tape has no backward pass");
        }
        if (lossOutput != loss) {
            throw new IllegalArgumentException("backward starts from the loss recorded on this tape");
        }
        gradWritten.clear();
        this.onParameterGradient = onParameterGradient;
        this.addToParameterGradients = addToParameterGradients;
        return new Backward();
    }

    /** A backward pass under way: its recorded ops' backward steps, last op first. */
    public final class Backward {

        private int next = backwardSteps.size() - 1;

        private Backward() {}

        /** Runs the next backward step; false, and the pass ended, when none was left. */
        public boolean step() {
            if (next < 0) {
                end();
                return false;
            }
            int step = next--;
            backwardSteps.get(step).run();
            releaseGrad(stepOutputs.get(step));
            return true;
        }

        /** Ends the pass early or late: hooks and accumulation are the next pass's to set. */
        public void end() {
            next = -1;
            onParameterGradient = t -> {};
            addToParameterGradients = false;
        }
    }

    /** Hands the step's buffers back to the workspace; parameter gradients stay with their parameters. */
    @Override
    public void close() {
        owned.forEach(workspace::giveBack);
        owned.clear();
        stepTensors.clear();
        backwardSteps.clear();
        stepOutputs.clear();
    }
}
