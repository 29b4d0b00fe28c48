package org.multigpulab.core.train;

import java.util.Arrays;
import java.util.List;
import java.util.function.Function;
import org.multigpulab.core.model.HostTensor;
import org.multigpulab.core.optim.OptimizerState;
import org.multigpulab.core.parallel.Replica;
import org.multigpulab.device.Buffer;
import org.multigpulab.device.Device;
import org.multigpulab.device.KernelOp.Gemm;

/**
 * What the trainer checks after a step, each failure an error that names the epoch, the batch and the device: a
 * loss or a summed gradient that is NaN or infinite ({@link TrainingDivergedException}), and, as a debug check,
 * replicas that no longer hold the same parameters, or the same buffers after their broadcast.
 */
final class StepChecks {

    /** Where in training a step is, for messages: {@code epoch 2, batch 7}. */
    record Position(int epoch, int batch) {
        @Override
        public String toString() {
            return "epoch " + epoch + ", batch " + batch;
        }
    }

    private StepChecks() {}

    static void finiteLoss(double lossSum, Device device, Position at, float lr) {
        if (!Double.isFinite(lossSum)) {
            throw diverged("the loss", device, at, lr);
        }
    }

    /**
     * One squared norm per piece of the parameters that {@code state} updates (a 1×n by n×1 product on the
     * device), downloaded together and checked. Run on the summed gradients, so a non-finite one anywhere shows on
     * every device that owns it.
     */
    static void finiteGradients(Replica replica, OptimizerState state, Position at, float lr) {
        List<OptimizerState.Piece> pieces = state.pieces();
        Buffer norms = replica.workspace().take(pieces.size());
        try {
            for (int i = 0; i < pieces.size(); i++) {
                Buffer g = pieces.get(i).grad();
                replica.device()
                        .kernels()
                        .launch(new Gemm(false, true, 1, 1, g.length(), 1f, g, g, 0f, norms.slice(i, 1)));
            }
            float[] host = replica.device().download(norms);
            for (int i = 0; i < pieces.size(); i++) {
                if (!Float.isFinite(host[i])) {
                    throw diverged(
                            "the gradient of "
                                    + replica.names().get(pieces.get(i).parameter()),
                            replica.device(),
                            at,
                            lr);
                }
            }
        } finally {
            replica.workspace().giveBack(norms);
        }
    }

    /** Every replica's parameters equal, bit for bit, to the first replica's. */
    static void replicasIdentical(List<Replica> replicas, Position at) {
        identical(replicas, Replica::download, "after " + at, "the allreduce did not reach every replica");
    }

    /** Every replica's buffers equal, bit for bit, to the first replica's, right after their broadcast. */
    static void buffersIdentical(List<Replica> replicas, Position at) {
        identical(
                replicas,
                Replica::downloadBuffers,
                "before " + at,
                "the buffers' broadcast did not reach every replica");
    }

    private static void identical(
            List<Replica> replicas, Function<Replica, List<HostTensor>> tensors, String when, String why) {
        List<HostTensor> reference = tensors.apply(replicas.getFirst());
        for (Replica replica : replicas.subList(1, replicas.size())) {
            List<HostTensor> other = tensors.apply(replica);
            for (int p = 0; p < reference.size(); p++) {
                if (!Arrays.equals(reference.get(p).values(), other.get(p).values())) {
                    throw new IllegalStateException(
                            when + " the replica on " + replica.device().id() + " differs from "
                                    + replicas.getFirst().device().id() + " in "
                                    + reference.get(p).name() + ": " + why);
                }
            }
        }
    }

    private static TrainingDivergedException diverged(String what, Device device, Position at, float lr) {
        return new TrainingDivergedException(what + " became NaN or infinite in " + at + " on " + device.id()
                + "; training stopped. Try a smaller --lr (now " + lr + ")");
    }
}
