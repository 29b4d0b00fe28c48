package org.multigpulab.core.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.multigpulab.core.parallel.GradientBuckets;

class TorchvisionResNetTest {

    /** torchvision's own counts: {@code sum(p.numel() for p in resnet50().parameters())}, its model docs' "num_params". */
    @Test
    void hasTorchvisionsParameterCountsNamesAndOrder() {
        TorchvisionResNet r50 = TorchvisionResNet.resnet50();
        assertEquals(25_557_032, r50.parameterCount());
        assertEquals(44_549_160, TorchvisionResNet.resnet101().parameterCount());
        List<String> names = r50.parameters().stream().map(ParameterSpec::name).toList();
        assertEquals(161, names.size(), "53 convolutions, 53 BatchNorms of 2 each, fc's 2");
        assertEquals(List.of("conv1.weight", "bn1.weight", "bn1.bias", "layer1.0.conv1.weight"), names.subList(0, 4));
        assertEquals(
                List.of("layer1.0.downsample.0.weight", "layer1.0.downsample.1.weight", "layer1.0.downsample.1.bias"),
                names.subList(names.indexOf("layer1.0.bn3.bias") + 1, names.indexOf("layer1.0.bn3.bias") + 4));
        assertEquals(List.of("fc.weight", "fc.bias"), names.subList(159, 161));
        assertEquals(53 * 3, r50.buffers().size(), "each BatchNorm's running mean, variance and count");
        assertEquals(Model.named("resnet101").name(), "ResNet101");
    }

    /**
     * DDP's buckets of ResNet-50 at its defaults (first 1 MiB, then 25 MiB), as its rule gives them when applied by
     * hand to torchvision's shapes (a few lines of Python over the shapes, not this code): fc's bias and weight fill
     * the first bucket past 1 MiB, and each later bucket is closed by the parameter that takes it to 25 MiB or more.
     */
    @Test
    void resnet50sBucketsAreDdps() {
        int[] sizes = TorchvisionResNet.resnet50().parameters().stream()
                .mapToInt(ParameterSpec::size)
                .toArray();
        List<GradientBuckets.Bucket> buckets = GradientBuckets.ddp(sizes, 25L << 20);
        assertEquals(
                List.of(8_196_000L, 31_502_336L, 26_255_360L, 26_550_272L, 9_724_160L),
                buckets.stream().map(b -> 4L * b.length()).toList());
        assertEquals(
                List.of(2, 15, 12, 51, 81),
                buckets.stream().map(b -> b.params().size()).toList());
        assertEquals(List.of(160, 159), buckets.getFirst().params(), "fc.bias, then fc.weight");
        assertEquals(0, buckets.getLast().params().getLast(), "conv1.weight, the first parameter, is the last");
        for (GradientBuckets.Bucket b : buckets.subList(0, buckets.size() - 1)) {
            long limit = b.index() == 0 ? GradientBuckets.DDP_FIRST_BUCKET_BYTES : 25L << 20;
            long withoutLast = 4L * (b.length() - sizes[b.params().getLast()]);
            assertTrue(4L * b.length() >= limit && withoutLast < limit, "bucket " + b.index() + " closes at its limit");
        }
    }
}
