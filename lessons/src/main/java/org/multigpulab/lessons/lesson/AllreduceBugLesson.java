package org.multigpulab.lessons.lesson;

import java.util.ArrayList;
import java.util.List;
import org.multigpulab.core.model.ParameterDistance;
import org.multigpulab.core.parallel.AllReduceAlgorithm;
import org.multigpulab.core.train.DataParallelTrainer;
import org.multigpulab.core.train.TrainingListener;
import org.multigpulab.device.Buffer;
import org.multigpulab.device.Device;

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
                device0.kernels().add(root, staged, root, n);
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
                ctx.gpus(4),
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
        var out = ctx.out();
        Outcome buggy = train(ctx, AS_WRITTEN);
        Outcome fixed = train(ctx, AllReduceAlgorithm.NAIVE);
        out.printf(
                "notebook's allreduce: test acc on device 0 %.3f; per replica %s; replica 1 differs from replica 0 by %.1f%%%n",
                buggy.lastTestAcc(), format(buggy.replicaAccuracy()), 100 * buggy.drift());
        out.printf(
                "fixed allreduce:      test acc on device 0 %.3f; per replica %s; replica 1 differs from replica 0 by %.1f%%%n",
                fixed.lastTestAcc(), format(fixed.replicaAccuracy()), 100 * fixed.drift());
        out.printf(
                "Notice: with the notebook's allreduce only device 0 receives the sum; replicas 1..%d step with"
                        + " their own shard's gradient and drift apart (%.1f%% here), and since their stale gradients"
                        + " are most of what device 0 sums, device 0 learns %s too (%.3f against %.3f). The notebook"
                        + " ran on one GPU and tested on device 0 only, so it never met the bug; testing every"
                        + " replica (exercise-4) catches it.%n",
                buggy.replicaAccuracy().size() - 1,
                100 * buggy.drift(),
                buggy.lastTestAcc() < fixed.lastTestAcc() ? "worse" : "differently",
                buggy.lastTestAcc(),
                fixed.lastTestAcc());
    }

    static String format(List<Double> values) {
        return values.stream().map(v -> String.format("%.3f", v)).toList().toString();
    }
}
