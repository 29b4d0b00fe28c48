package org.multigpulab.lessons.lesson;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.multigpulab.core.model.ParameterDistance;
import org.multigpulab.core.parallel.AllReduceAlgorithm;
import org.multigpulab.core.train.DataParallelTrainer;
import org.multigpulab.core.train.TrainingListener;
import org.multigpulab.device.Buffer;
import org.multigpulab.device.Device;
import org.multigpulab.device.KernelOp.Add;

/**
 * The notebook's own allreduce, line for line: {@code data[i] = data[0].to(data[i].device)} rebinds a slot of
 * a Python list, so the gradients of replicas 1…k−1 never receive the sum. Side by side with the fixed one.
 */
public final class AllreduceBugLesson implements Lesson {

    /** The notebook's allreduce as written: the copy back lands in a new buffer, not in the gradient. */
    public static final AllReduceAlgorithm AS_WRITTEN = (grads, tensor) -> {
        List<Buffer> data = new ArrayList<>(grads);
        Buffer root = data.getFirst();
        Device device0 = root.device();
        int n = root.length();
        try (Buffer staged = device0.allocate(n)) {
            for (int i = 1; i < data.size(); i++) {
                device0.copyFromPeer(data.get(i), staged); // data[0][:] += data[i].to(data[0].device)
                device0.kernels().launch(new Add(root, staged, root, n));
            }
        }
        for (int i = 1; i < data.size(); i++) {
            Buffer copy = data.get(i).device().allocate(n); // data[i] = data[0].to(data[i].device)
            copy.device().copyFromPeer(root, copy);
            data.set(i, copy); // ...rebinds the slot: grads.get(i) is untouched
            copy.close(); // and Python drops the copy with the list
        }
    };

    /** Test accuracy of every replica after training, and how far replica 1 drifted from replica 0. */
    public record Outcome(List<Double> replicaAccuracy, double drift, double lastTestAcc) {}

    @Override
    public String name() {
        return "allreduce-bug";
    }

    @Override
    public String summary() {
        return "the notebook's allreduce rebinds a list slot: replicas 1..k-1 go stale; shown beside the fix on 4 GPUs";
    }

    public Outcome train(LessonContext ctx, AllReduceAlgorithm allReduce) {
        List<Double> accuracy = new ArrayList<>();
        double[] drift = new double[1];
        var result = ctx.train(
                ctx.gpusToCompare(4),
                LessonContext.recipe(ctx.epochs(2), ctx.batchSize(), 0.2f).withAllReduce(allReduce),
                new TrainingListener() {},
                trainer -> {
                    for (int i = 0; i < trainer.devices().size(); i++) {
                        accuracy.add(trainer.evaluateAccuracy(ctx.data().test(), i));
                    }
                    drift[0] = drift(trainer);
                });
        return new Outcome(List.copyOf(accuracy), drift[0], result.finalTestAcc());
    }

    /** ‖params₁ − params₀‖ / ‖params₀‖. */
    private static double drift(DataParallelTrainer trainer) {
        return ParameterDistance.relative(
                trainer.replicas().get(1).download(), trainer.replicas().get(0).download());
    }

    @Override
    public void run(LessonContext ctx) {
        report(ctx, train(ctx, AS_WRITTEN), train(ctx, AllReduceAlgorithm.NAIVE));
    }

    /** Replica 1 drifts from replica 0 with the notebook's allreduce: by more than float rounding could. */
    static Claim drift(Outcome buggy) {
        return Claim.above("notebook's allreduce: replica 1's relative distance from replica 0", buggy.drift(), 1e-3)
                .and(
                        ": only device 0 receives the sum, replicas 1.."
                                + (buggy.replicaAccuracy().size() - 1)
                                + " step with their own shard's gradient and drift apart.",
                        ": the replicas did not drift apart.");
    }

    /** Device 0's accuracy with the notebook's allreduce against the fixed one's, within the test set's noise. */
    static Claim accuracy(Outcome buggy, Outcome fixed, int testImages) {
        String what = "test accuracy on device 0, notebook's vs fixed allreduce";
        Optional<Claim> notLearned = Claim.notLearned(what, buggy.lastTestAcc(), fixed.lastTestAcc());
        if (notLearned.isPresent()) {
            return notLearned.get();
        }
        Claim same = Claim.same(
                what,
                buggy.lastTestAcc(),
                fixed.lastTestAcc(),
                Claim.accuracyNoise(fixed.lastTestAcc(), testImages),
                3);
        return same.and(
                ": device 0 sums every replica's gradient, so here the stale replicas did not show in its accuracy;"
                        + " testing every replica (exercise-4) catches them.",
                buggy.lastTestAcc() < fixed.lastTestAcc()
                        ? ": the stale replicas' gradients are most of what device 0 sums, so device 0 learns worse"
                                + " too. The notebook ran on one GPU and tested on device 0 only, so it never met the bug."
                        : ": the stale replicas' gradients change what device 0 learns.");
    }

    /** The two runs and the conclusions they support. */
    public void report(LessonContext ctx, Outcome buggy, Outcome fixed) {
        var out = ctx.out();
        out.printf(
                "notebook's allreduce: test acc on device 0 %.3f; per replica %s; replica 1's parameters differ from replica 0's by %.1f%%%n",
                buggy.lastTestAcc(), format(buggy.replicaAccuracy()), 100 * buggy.drift());
        out.printf(
                "fixed allreduce:      test acc on device 0 %.3f; per replica %s; replica 1's parameters differ from replica 0's by %.1f%%%n",
                fixed.lastTestAcc(), format(fixed.replicaAccuracy()), 100 * fixed.drift());
        out.println(drift(buggy).text());
        out.println(accuracy(buggy, fixed, ctx.data().test().count()).notice());
    }

    static String format(List<Double> values) {
        return values.stream().map(v -> String.format("%.3f", v)).toList().toString();
    }
}
