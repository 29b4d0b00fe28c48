package org.multigpulab.core.optim;

import java.util.List;
import org.multigpulab.device.Device;
import org.multigpulab.device.KernelOp.AdamStep;
import org.multigpulab.device.StepPart;

/**
 * {@code torch.optim.Adam(params, lr, betas, eps, weight_decay)}, or with {@code decoupled}
 * {@code torch.optim.AdamW}, whose weight decay shrinks the parameters apart from the gradient: one {@link AdamStep}
 * per parameter, its two moments starting at zero.
 */
public record Adam(float beta1, float beta2, float eps, float weightDecay, boolean decoupled) implements Optimizer {

    public Adam {
        if (!(beta1 >= 0 && beta1 < 1) || !(beta2 >= 0 && beta2 < 1)) {
            throw new IllegalArgumentException("betas must be at least 0 and below 1, not " + beta1 + ", " + beta2);
        }
        if (!(eps >= 0) || !Float.isFinite(eps)) {
            throw new IllegalArgumentException("eps must be 0 or more, not " + eps);
        }
        if (!(weightDecay >= 0) || !Float.isFinite(weightDecay)) {
            throw new IllegalArgumentException("weight decay must be 0 or more, not " + weightDecay);
        }
    }

    /** torch.optim.Adam's defaults: betas (0.9, 0.999), eps 1e-8, no weight decay. */
    public static Adam adam() {
        return new Adam(0.9f, 0.999f, 1e-8f, 0, false);
    }

    /** torch.optim.AdamW's defaults: Adam's, and a decoupled weight decay of 0.01. */
    public static Adam adamW() {
        return new Adam(0.9f, 0.999f, 1e-8f, 0.01f, true);
    }

    @Override
    public String name() {
        return decoupled ? "adamw" : "adam";
    }

    /** {@code adam (betas 0.9, 0.999, eps 1.0E-8, weight decay 0.0)}. */
    @Override
    public String toString() {
        return name() + " (betas " + beta1 + ", " + beta2 + ", eps " + eps + ", weight decay " + weightDecay + ")";
    }

    @Override
    public List<String> stateNames() {
        return List.of("exp_avg", "exp_avg_sq");
    }

    @Override
    public float defaultLr() {
        return 1e-3f;
    }

    @Override
    public void step(OptimizerState state, float lr, int batchSize) {
        Device device = state.device();
        int step = state.steps() + 1;
        try (Device.Range r = device.range(new StepPart.OptimizerStep(name()))) {
            for (OptimizerState.Piece piece : state.pieces()) {
                device.kernels()
                        .launch(new AdamStep(
                                lr,
                                beta1,
                                beta2,
                                eps,
                                weightDecay,
                                decoupled,
                                step,
                                1f / batchSize,
                                piece.data(),
                                piece.grad(),
                                piece.tensors().get(0),
                                piece.tensors().get(1),
                                piece.length()));
            }
        }
        state.stepped();
    }
}
