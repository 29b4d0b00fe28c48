package org.multigpulab.core.optim;

import java.util.ArrayList;
import java.util.List;
import org.multigpulab.device.Device;
import org.multigpulab.device.KernelOp.Axpy;
import org.multigpulab.device.KernelOp.SgdStep;
import org.multigpulab.device.Kernels;
import org.multigpulab.device.StepPart;

/**
 * {@code torch.optim.SGD(params, lr, momentum, dampening, weight_decay, nesterov)}. Without momentum and weight decay
 * it is the notebook's {@code sgd}, one {@code p -= lr/batch · grad} per parameter, as the notebook rounds it; else
 * one {@link SgdStep} per parameter, the first momentum buffer the gradient itself, undampened.
 */
public record Sgd(float momentum, float dampening, boolean nesterov, float weightDecay) implements Optimizer {

    public Sgd {
        if (!(momentum >= 0) || !Float.isFinite(momentum)) {
            throw new IllegalArgumentException("momentum must be 0 or more, not " + momentum);
        }
        if (!(dampening >= 0 && dampening <= 1)) {
            throw new IllegalArgumentException("dampening must be between 0 and 1, not " + dampening);
        }
        if (!(weightDecay >= 0) || !Float.isFinite(weightDecay)) {
            throw new IllegalArgumentException("weight decay must be 0 or more, not " + weightDecay);
        }
        if (nesterov && (momentum == 0 || dampening != 0)) {
            throw new IllegalArgumentException("Nesterov momentum needs a momentum above 0 and dampening 0, as"
                    + " torch.optim.SGD's; give a momentum (e.g. 0.9) without dampening, or leave Nesterov out");
        }
    }

    @Override
    public String name() {
        return "sgd";
    }

    /** {@code sgd (momentum 0.9, nesterov, weight decay 0.001)}: what it does beyond the notebook's. */
    @Override
    public String toString() {
        List<String> more = new ArrayList<>();
        if (momentum != 0) {
            more.add("momentum " + momentum);
        }
        if (dampening != 0) {
            more.add("dampening " + dampening);
        }
        if (nesterov) {
            more.add("nesterov");
        }
        if (weightDecay != 0) {
            more.add("weight decay " + weightDecay);
        }
        return more.isEmpty() ? name() : name() + " (" + String.join(", ", more) + ")";
    }

    @Override
    public List<String> stateNames() {
        return momentum == 0 ? List.of() : List.of("momentum_buffer");
    }

    @Override
    public float defaultLr() {
        return 0.2f;
    }

    private boolean plain() {
        return momentum == 0 && weightDecay == 0;
    }

    @Override
    public void step(OptimizerState state, float lr, int batchSize) {
        Device device = state.device();
        try (Device.Range r = device.range(new StepPart.OptimizerStep(name()))) {
            Kernels k = device.kernels();
            for (OptimizerState.Piece piece : state.pieces()) {
                if (plain()) {
                    // The notebook's sgd: p -= lr * grad / batch_size
                    k.launch(new Axpy(-lr / batchSize, piece.grad(), piece.data(), piece.length()));
                } else {
                    k.launch(new SgdStep(
                            lr,
                            momentum,
                            dampening,
                            nesterov,
                            weightDecay,
                            1f / batchSize,
                            state.steps() == 0,
                            piece.data(),
                            piece.grad(),
                            momentum == 0 ? piece.data() : piece.tensors().getFirst(),
                            piece.length()));
                }
            }
        }
        state.stepped();
    }
}
