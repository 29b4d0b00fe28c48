package org.multigpulab.lessons.lesson;

import java.util.List;
import java.util.Locale;
import java.util.Random;
import org.multigpulab.core.data.BatchIterator;
import org.multigpulab.core.data.FashionMnist;
import org.multigpulab.core.model.LeNet;
import org.multigpulab.core.train.DataParallel;
import org.multigpulab.device.Device;

/**
 * d2l §12.6, concise: wrap the model and a device list in {@link DataParallel} and write the training loop as
 * for one device. Replicas, scatter and allreduce are inside {@code net.step}.
 */
public final class ConciseLesson implements Lesson {

    @Override
    public String name() {
        return "concise";
    }

    @Override
    public String summary() {
        return "d2l 12.6: DataParallel wraps model and devices; the loop reads as for one device";
    }

    /** Trains with the concise API; returns test accuracy after each epoch. */
    public static double[] train(LessonContext ctx, int gpus, int epochs, int batchSize, float lr) {
        FashionMnist.Splits data = ctx.data();
        List<Device> devices = ctx.open(gpus);
        double[] acc = new double[epochs];
        double seconds = 0;
        LeNet lenet = new LeNet();
        try (DataParallel net = DataParallel.wrap(lenet, lenet.initialState(1), devices)) {
            Random shuffle = new Random(1);
            for (int epoch = 0; epoch < epochs; epoch++) {
                long start = System.nanoTime();
                for (var it = new BatchIterator(data.train(), batchSize, shuffle); it.hasNext(); ) {
                    net.step(it.next(), lr);
                }
                devices.forEach(Device::synchronize);
                seconds += (System.nanoTime() - start) / 1e9;
                acc[epoch] = net.accuracy(data.test());
            }
        } finally {
            devices.forEach(Device::close);
        }
        ctx.out()
                .printf(
                        Locale.ROOT,
                        "test acc: %.2f, %.1f sec/epoch on %s%n",
                        acc[epochs - 1],
                        seconds / epochs,
                        devices.stream().map(d -> d.id().toString()).toList());
        return acc;
    }

    @Override
    public void run(LessonContext ctx) {
        train(ctx, ctx.gpus(2), ctx.epochs(5), ctx.batchSize(), 0.2f);
        ctx.out()
                .println("Notice: the loop holds no device at all: net.step(batch, lr) splits the batch, runs every"
                        + " replica, allreduces and updates them, as nn.DataParallel does for PyTorch.");
    }
}
