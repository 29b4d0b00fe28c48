package org.multigpulab.lessons.cli;

import org.multigpulab.core.optim.Adam;
import org.multigpulab.core.optim.Optimizer;
import org.multigpulab.core.optim.Sgd;
import org.multigpulab.lessons.errors.UserError;
import picocli.CommandLine.Option;

/** The optimizer of {@code train}, as {@code torch.optim}'s constructors take it; unset values are torch's defaults. */
final class OptimizerOptions {

    @Option(
            names = "--optimizer",
            paramLabel = "NAME",
            defaultValue = "sgd",
            description = "sgd, adam or adamw, each exactly torch.optim's rule on the gradient of the mean loss over"
                    + " the global batch. Default: ${DEFAULT-VALUE} (the notebook's; --lr then defaults to 0.2, and to"
                    + " 1e-3 for adam and adamw).")
    String name;

    @Option(
            names = "--momentum",
            paramLabel = "M",
            description = "SGD's momentum; its first buffer is the gradient itself. Default: 0.")
    Float momentum;

    @Option(names = "--dampening", paramLabel = "D", description = "SGD's dampening of the momentum. Default: 0.")
    Float dampening;

    @Option(names = "--nesterov", description = "SGD with Nesterov momentum (needs --momentum above 0, no dampening).")
    boolean nesterov;

    @Option(
            names = "--weight-decay",
            paramLabel = "W",
            description = "L2 weight decay (sgd, adam), decoupled for adamw. Default: 0, adamw 0.01.")
    Float weightDecay;

    @Option(
            names = "--betas",
            paramLabel = "B1,B2",
            split = ",",
            description = "Adam's decay rates of the moments. Default: 0.9,0.999.")
    float[] betas;

    @Option(names = "--eps", paramLabel = "E", description = "Adam's term added to the denominator. Default: 1e-8.")
    Float eps;

    /** The optimizer asked for, checked: a line naming the option at fault where torch.optim would refuse it. */
    Optimizer optimizer() {
        String n;
        try {
            n = Optimizer.checkedName(name);
        } catch (IllegalArgumentException e) {
            throw new UserError("--optimizer: " + e.getMessage());
        }
        if (n.equals("sgd")) {
            refuse(betas != null, "--betas");
            refuse(eps != null, "--eps");
        } else {
            refuse(momentum != null, "--momentum");
            refuse(dampening != null, "--dampening");
            refuse(nesterov, "--nesterov");
        }
        if (betas != null && betas.length != 2) {
            throw new UserError("--betas takes two numbers, B1,B2 such as 0.9,0.999");
        }
        try {
            return switch (n) {
                case "sgd" -> new Sgd(or(momentum, 0), or(dampening, 0), nesterov, or(weightDecay, 0));
                default -> {
                    Adam defaults = n.equals("adamw") ? Adam.adamW() : Adam.adam();
                    yield new Adam(
                            betas == null ? defaults.beta1() : betas[0],
                            betas == null ? defaults.beta2() : betas[1],
                            or(eps, defaults.eps()),
                            or(weightDecay, defaults.weightDecay()),
                            defaults.decoupled());
                }
            };
        } catch (IllegalArgumentException e) {
            throw new UserError("--optimizer " + n + ": " + e.getMessage());
        }
    }

    private void refuse(boolean given, String option) {
        if (given) {
            throw new UserError(option + " is not an option of --optimizer " + name + "; leave it out, or choose "
                    + (option.equals("--betas") || option.equals("--eps") ? "adam or adamw" : "sgd"));
        }
    }

    private static float or(Float given, float otherwise) {
        return given == null ? otherwise : given;
    }
}
