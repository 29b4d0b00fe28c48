package org.multigpulab.core.train;

import java.util.List;
import org.multigpulab.core.data.Dataset;
import org.multigpulab.core.data.HostBatch;
import org.multigpulab.core.model.HostTensor;
import org.multigpulab.core.model.Model;
import org.multigpulab.core.parallel.BatchNormStatistics;
import org.multigpulab.device.Device;

/**
 * The concise API of d2l §12.6, like PyTorch's {@code nn.DataParallel}: wrap the model's parameters and a list
 * of devices, then train with a loop written as for one device. Replicas, scatter and allreduce happen
 * inside {@link #step}. Closing it frees the replicas; the devices stay open.
 */
public final class DataParallel implements AutoCloseable {

    private final DataParallelTrainer trainer;
    private int epoch;

    private DataParallel(DataParallelTrainer trainer) {
        this.trainer = trainer;
    }

    /** {@code nn.DataParallel(net, device_ids=devices)} for {@code model} with these parameters. */
    public static DataParallel wrap(Model model, List<HostTensor> params, List<Device> devices) {
        return wrap(model, params, devices, BatchNormStatistics.LOCAL);
    }

    /**
     * {@link #wrap(Model, List, List)} with BatchNorm's statistics taken as {@code batchNorm} says: {@code SYNC} as
     * after {@code nn.SyncBatchNorm.convert_sync_batchnorm(net)}.
     */
    public static DataParallel wrap(
            Model model, List<HostTensor> params, List<Device> devices, BatchNormStatistics batchNorm) {
        return new DataParallel(new DataParallelTrainer(
                devices, model, params, TrainConfig.notebook().withBatchNorm(batchNorm)));
    }

    /**
     * One optimisation step on a mini-batch: {@code loss(net(X), y).backward(); trainer.step()}. A batch numbered 1
     * (the first a {@link org.multigpulab.core.data.BatchIterator} hands out) starts a new epoch, as a new pass
     * over a {@code DataLoader} does, so that an error names the loop's epoch and batch.
     */
    public DataParallelTrainer.BatchStats step(HostBatch batch, float lr) {
        if (batch.number() == 1 || epoch == 0) {
            epoch++;
        }
        return trainer.trainBatch(batch, lr, epoch);
    }

    /** The share of {@code data} classified right (on the first device). */
    public double accuracy(Dataset data) {
        return trainer.evaluateAccuracy(data);
    }

    /** The model's state as device 0 holds it, parameters then buffers ({@code net.state_dict()}). */
    public List<HostTensor> state() {
        return trainer.state();
    }

    public List<Device> devices() {
        return trainer.devices();
    }

    @Override
    public void close() {
        trainer.close();
    }
}
