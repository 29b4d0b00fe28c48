package org.multigpulab.lessons.lesson;

import java.util.List;
import java.util.Locale;
import java.util.Random;
import org.multigpulab.core.data.BatchIterator;
import org.multigpulab.core.data.FashionMnist;
import org.multigpulab.core.model.HostTensor;
import org.multigpulab.core.model.Model;
import org.multigpulab.core.model.ResNet18;
import org.multigpulab.core.parallel.AllReduceAlgorithm;
import org.multigpulab.core.parallel.BatchNormStatistics;
import org.multigpulab.core.train.DataParallel;
import org.multigpulab.core.train.TrainResult;
import org.multigpulab.device.Device;
import org.multigpulab.lessons.simulate.TimeOnlyEpoch;

/**
 * d2l §12.6, concise, as the book runs it: d2l's ResNet-18 wrapped with its devices in {@link DataParallel}
 * ({@code nn.DataParallel}), the training loop written as for one device; {@code train(net, num_gpus=1,
 * batch_size=256, lr=0.1)}, then {@code train(net, num_gpus=2, batch_size=512, lr=0.2)} on the same net, whose second
 * {@code init_weights} draws the convolutions' and the linear layer's weights again and keeps the rest (biases,
 * BatchNorm's γ, β and running statistics). On a slice of Fashion-MNIST by default (ResNet-18 is slow on a
 * processor); beside it, the simulated epoch of V100s on all 60,000 images (time only) and the book's own printed
 * runs.
 */
public final class ConciseLesson implements Lesson {

    /**
     * The slice trained by default, and the epochs: about 7 minutes on 2 cores of a Zen 5 (README); 2,048 images for
     * 2 epochs (16 steps) did not leave the initial plateau.
     */
    static final int TRAIN_IMAGES = 6144, TEST_IMAGES = 1024, EPOCHS = 3;
    /** The book's GPUs: V100-SXM2 (28 of its 31 builds print it). */
    static final String PROFILE = "v100";

    private static final int FULL_EPOCH = 60_000;

    @Override
    public String name() {
        return "concise";
    }

    @Override
    public String summary() {
        return "d2l 12.6: ResNet-18 in DataParallel on 1 GPU (batch 256, lr 0.1) then 2 (batch 512, lr 0.2), beside"
                + " the book's published runs";
    }

    /** One {@code train(net, num_gpus, batch_size, lr)}: its closing line's figures and the net's state after it. */
    record Run(int gpus, int batchSize, float lr, double[] testAcc, double secPerEpoch, List<HostTensor> state) {
        double finalTestAcc() {
            return testAcc[testAcc.length - 1];
        }
    }

    /**
     * §12.6's {@code train}: {@code net} (as {@code state}) wrapped with {@code gpus} devices, {@code epochs} epochs of
     * batches of {@code batchSize} at learning rate {@code lr}, test accuracy after each; prints each epoch and the
     * book's closing line. BatchNorm's statistics as {@code batchNorm} says ({@code nn.DataParallel}'s are local).
     */
    static Run train(
            LessonContext ctx,
            FashionMnist.Splits data,
            Model model,
            List<HostTensor> state,
            int gpus,
            int epochs,
            int batchSize,
            float lr,
            BatchNormStatistics batchNorm) {
        List<Device> devices = ctx.open(gpus);
        double[] acc = new double[epochs];
        double seconds = 0;
        List<HostTensor> trained;
        try (DataParallel net = DataParallel.wrap(model, state, devices, batchNorm)) {
            Random shuffle = new Random(1);
            for (int epoch = 0; epoch < epochs; epoch++) {
                long start = System.nanoTime();
                for (var it = new BatchIterator(data.train(), batchSize, shuffle); it.hasNext(); ) {
                    net.step(it.next(), lr);
                }
                devices.forEach(Device::synchronize);
                double epochSec = (System.nanoTime() - start) / 1e9;
                seconds += epochSec;
                acc[epoch] = net.accuracy(data.test());
                ctx.out()
                        .printf(
                                Locale.ROOT,
                                "  epoch %d/%d: test acc %.2f, %.1f sec%n",
                                epoch + 1,
                                epochs,
                                acc[epoch],
                                epochSec);
            }
            trained = net.state();
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
        return new Run(gpus, batchSize, lr, acc, seconds / epochs, trained);
    }

    /** The simulated seconds of one epoch over all 60,000 images on {@code gpus} of the book's GPUs (time only). */
    static double simulatedEpoch(Model model, int gpus, int batchSize) {
        return TimeOnlyEpoch.run(
                        new TimeOnlyEpoch.Setup(
                                gpus,
                                1,
                                PROFILE,
                                null,
                                null,
                                model,
                                batchSize,
                                FULL_EPOCH,
                                AllReduceAlgorithm.NAIVE,
                                0,
                                false),
                        null)
                .secPerEpoch();
    }

    @Override
    public void run(LessonContext ctx) {
        ctx.needs(2);
        FashionMnist.Splits data = ctx.data(TRAIN_IMAGES, TEST_IMAGES);
        int epochs = ctx.epochs(EPOCHS);
        ResNet18 net = new ResNet18();
        ctx.out()
                .printf(
                        Locale.ROOT,
                        "net = resnet18(10, in_channels=1): %,d parameters; trained on %,d of the 60,000 training"
                                + " images, tested on %,d, %d epoch%s (the book: all of them, 10 epochs; change it with"
                                + " --train-samples, --test-samples, --epochs)%n",
                        net.parameterCount(),
                        data.train().count(),
                        data.test().count(),
                        epochs,
                        epochs == 1 ? "" : "s");
        int batch = ctx.batchSize();
        ctx.out().println("train(net, num_gpus=1, batch_size=" + batch + ", lr=0.1)");
        Run one = train(ctx, data, net, net.initialState(1), 1, epochs, batch, 0.1f, BatchNormStatistics.LOCAL);
        ctx.out().println("train(net, num_gpus=2, batch_size=" + 2 * batch + ", lr=0.2)");
        Run two = train(
                ctx, data, net, net.initWeights(one.state(), 2), 2, epochs, 2 * batch, 0.2f, BatchNormStatistics.LOCAL);
        report(ctx, net, one, two);
    }

    /** The simulated V100 epochs beside the book's runs, and what they say. */
    void report(LessonContext ctx, Model net, Run one, Run two) {
        double sim1 = simulatedEpoch(net, 1, 256), sim2 = simulatedEpoch(net, 2, 512);
        PublishedRuns book = PublishedRuns.load(), v100 = book.onV100();
        ctx.out().printf("%nThe book's printed runs (%s):%n", PublishedRuns.SOURCE);
        ctx.out()
                .printf(
                        "  1 GPU, batch 256: %s sec/epoch on %d V100 builds; test acc %s over all %d%n",
                        v100.range(PublishedRuns.Build::resnet1GpuSec, "%.1f"),
                        v100.builds().size(),
                        book.range(PublishedRuns.Build::resnet1GpuAcc, "%.2f"),
                        book.builds().size());
        ctx.out()
                .printf(
                        "  2 GPUs, batch 512: %s sec/epoch; test acc %s%n",
                        v100.range(PublishedRuns.Build::resnet2GpuSec, "%.1f"),
                        book.range(PublishedRuns.Build::resnet2GpuAcc, "%.2f"));
        ctx.out()
                .printf(
                        Locale.ROOT,
                        "Simulated V100-SXM2s, all 60,000 images, the GPUs alone (time only): 1 GPU %s sec/epoch, 2"
                                + " GPUs %s%n",
                        TrainResult.seconds(sim1),
                        TrainResult.seconds(sim2));
        for (Claim c : claims(one, two, sim1, sim2, v100)) {
            ctx.out().println(c.notice());
        }
    }

    /** The conclusions, each from the figures beside it. */
    static List<Claim> claims(Run one, Run two, double sim1, double sim2, PublishedRuns v100) {
        double bookSpeedUp =
                v100.median(PublishedRuns.Build::resnet1GpuSec) / v100.median(PublishedRuns.Build::resnet2GpuSec);
        Claim pays = Claim.ratioAbove("simulated speed-up of 2 V100s over 1", sim1, sim2, 1.2)
                .and(
                        String.format(
                                Locale.ROOT,
                                ": ResNet-18's compute outweighs what the GPUs exchange, so data parallelism pays (the"
                                        + " book's medians: %.2f×).",
                                bookSpeedUp),
                        ": the exchange eats the second GPU's work.");
        Claim accuracy = new Claim(
                two.finalTestAcc() < one.finalTestAcc(),
                String.format(
                        Locale.ROOT,
                        "the 2-GPU run ends at test acc %.2f against %.2f on 1 GPU%s (the book's 2-GPU runs printed"
                                + " %.2f to %.2f; ./lab lesson batchnorm looks into why).",
                        two.finalTestAcc(),
                        one.finalTestAcc(),
                        two.finalTestAcc() < one.finalTestAcc() ? ", lower" : ", not lower",
                        v100.builds().stream()
                                .mapToDouble(PublishedRuns.Build::resnet2GpuAcc)
                                .min()
                                .orElseThrow(),
                        v100.builds().stream()
                                .mapToDouble(PublishedRuns.Build::resnet2GpuAcc)
                                .max()
                                .orElseThrow()));
        return List.of(pays, accuracy);
    }
}
