package org.multigpulab.core.train;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.multigpulab.core.Synthetic;
import org.multigpulab.core.data.FashionMnist;
import org.multigpulab.core.model.HostTensor;
import org.multigpulab.core.model.LeNet;
import org.multigpulab.core.parallel.AllReduceAlgorithm;
import org.multigpulab.core.parallel.GradientBuckets;
import org.multigpulab.core.parallel.Replica;

/**
 * DDP-style buckets: the same sums as the notebook's per-parameter allreduce, bit for bit, and on simulated
 * GPUs less time, because a bucket travels while the backward pass computes the next gradients.
 */
class BucketedAllReduceTest {

    private record Run(List<HostTensor> params, double simSecPerEpoch) {}

    private static Run train(String allreduce, long bucketBytes) {
        FashionMnist.Splits data = Synthetic.splits(1024, 64);
        try (DataParallelTrainer trainer = new DataParallelTrainer(
                Synthetic.sim(2, "t4", "pcie3"),
                new LeNet(),
                new LeNet().initialState(3),
                new TrainConfig(1, 256, 0.2f, 1, false, true)
                        .withAllReduce(AllReduceAlgorithm.named(allreduce))
                        .withBucketBytes(bucketBytes))) {
            TrainResult result = trainer.train(data, new TrainingListener() {});
            return new Run(trainer.parameters(), result.simulatedSecPerEpoch());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"naive", "ring"})
    void bucketsSumTheSameAndOverlapTheBackwardPass(String allreduce) {
        Run perParameter = train(allreduce, 0);
        Run bucketed = train(allreduce, 100_000);
        for (int p = 0; p < perParameter.params().size(); p++) {
            assertArrayEquals(
                    perParameter.params().get(p).values(),
                    bucketed.params().get(p).values(),
                    perParameter.params().get(p).name());
        }
        assertTrue(
                bucketed.simSecPerEpoch() < perParameter.simSecPerEpoch(),
                "buckets should save simulated time: " + bucketed.simSecPerEpoch() + " vs "
                        + perParameter.simSecPerEpoch());
    }

    @Test
    void bucketsFollowTheBackwardOrderAndTheCap() {
        try (Replica r =
                Replica.getParams(new LeNet().initialState(1), Synthetic.sim(1).getFirst())) {
            // sizes: W1 180, b1 20, W2 25000, b2 50, W3 102400, b3 128, W4 1280, b4 10
            List<GradientBuckets.Bucket> buckets = GradientBuckets.plan(r, 120_000);
            assertEquals(
                    List.of(List.of(7, 6, 5), List.of(4), List.of(3, 2, 1, 0)),
                    buckets.stream().map(GradientBuckets.Bucket::params).toList());
            assertEquals(
                    List.of(0, 1418, 103818),
                    buckets.stream().map(GradientBuckets.Bucket::offset).toList());
            assertEquals(1, GradientBuckets.plan(r, 25L << 20).size(), "DDP's default 25 MB holds all of LeNet");
        }
    }
}
