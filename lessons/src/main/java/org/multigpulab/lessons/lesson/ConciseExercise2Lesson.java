package org.multigpulab.lessons.lesson;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.multigpulab.core.autograd.Ops;
import org.multigpulab.core.autograd.Tape;
import org.multigpulab.core.autograd.Tensor;
import org.multigpulab.core.data.BatchIterator;
import org.multigpulab.core.data.HostBatch;
import org.multigpulab.core.model.LeNet;
import org.multigpulab.core.parallel.Replica;
import org.multigpulab.core.parallel.Scatter;
import org.multigpulab.device.Device;

/**
 * d2l §12.6 exercise 2: devices of unequal speed. Measure each device's throughput on the model's own forward
 * and backward pass, then give each a share of every batch in proportion, so all finish a step together.
 */
public final class ConciseExercise2Lesson implements Lesson {

    private static final int PROBE = 64;
    private static final int REPEATS = 7;
    private static final LeNet LENET = new LeNet();

    @Override
    public String name() {
        return "concise-exercise-2";
    }

    @Override
    public String summary() {
        return "unequal devices: measure each one's images/s, split every batch in proportion";
    }

    /**
     * Images per second of one forward and backward pass on each device: every device warmed up first, then
     * rounds that visit the devices in turn (so drift in the machine's speed hits all alike), median per device.
     */
    public static double[] throughput(List<Device> devices, HostBatch probe) {
        List<Replica> replicas = devices.stream()
                .map(d -> Replica.getParams(LENET.initParams(0), d))
                .toList();
        try {
            replicas.forEach(r -> pass(r, probe));
            double[][] times = new double[devices.size()][REPEATS];
            for (int round = 0; round < REPEATS; round++) {
                for (int d = 0; d < devices.size(); d++) {
                    long start = System.nanoTime();
                    pass(replicas.get(d), probe);
                    times[d][round] = (System.nanoTime() - start) / 1e9;
                }
            }
            double[] rates = new double[devices.size()];
            for (int d = 0; d < rates.length; d++) {
                Arrays.sort(times[d]);
                rates[d] = probe.size() / times[d][REPEATS / 2];
            }
            return rates;
        } finally {
            replicas.forEach(Replica::close);
        }
    }

    private static void pass(Replica replica, HostBatch probe) {
        Device device = replica.device();
        try (Tape tape = Tape.training(replica.workspace())) {
            Tensor x = tape.newTensor(false, probe.size(), 1, LeNet.IMAGE_SIZE, LeNet.IMAGE_SIZE);
            Tensor y = tape.newTensor(false, probe.size());
            device.upload(probe.x(), 0, x.data());
            device.upload(probe.y(), 0, y.data());
            tape.backward(Ops.crossEntropySum(tape, LENET.forward(tape, x, replica.params()), y));
        }
        device.synchronize();
    }

    @Override
    public void run(LessonContext ctx) {
        List<Device> devices = ctx.open(ctx.gpus(2));
        try {
            HostBatch probe = new BatchIterator(ctx.data().train(), PROBE).next();
            double[] rates = throughput(devices, probe);
            List<String> shown = new ArrayList<>();
            for (int i = 0; i < rates.length; i++) {
                shown.add(String.format("%s %.0f img/s", devices.get(i).id(), rates[i]));
            }
            ctx.out().println("measured (forward + backward, median of " + REPEATS + "): " + String.join(", ", shown));
            ctx.out()
                    .println("a batch of " + ctx.batchSize() + " split in proportion: "
                            + Arrays.toString(Scatter.shardSizes(ctx.batchSize(), rates)) + " (evenly: "
                            + Arrays.toString(Scatter.shardSizes(ctx.batchSize(), rates.length)) + ")");
            ctx.out()
                    .println(
                            "Notice: a step lasts as long as its slowest device, so equal shares on unequal devices"
                                    + " leave the fast ones idle; shares in proportion to speed make them finish together. The"
                                    + " update is unchanged, since the gradient is summed over the whole batch whatever the split"
                                    + " (Scatter.shardSizes splits it). Logical GPUs of one processor measure alike, up to noise.");
        } finally {
            devices.forEach(Device::close);
        }
    }
}
