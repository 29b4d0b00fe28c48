package org.multigpulab.lessons.cli;

import org.multigpulab.core.parallel.BatchNormStatistics;
import org.multigpulab.core.parallel.ZeroStage;
import org.multigpulab.core.train.TrainConfig;
import org.multigpulab.lessons.errors.UserError;
import picocli.CommandLine;
import picocli.CommandLine.Option;

/**
 * {@code --accumulate}, {@code --zero} and {@code --batchnorm}, as {@code train} takes them: how one optimizer step is
 * made.
 */
final class StepOptions {

    @Option(
            names = "--accumulate",
            paramLabel = "K",
            defaultValue = "1",
            description =
                    "Micro-batches of --batch-size per optimizer step, the gradients summed over the devices"
                            + " only after the last (DDP's no_sync); --checkpoint-every counts steps. Default: ${DEFAULT-VALUE}.")
    int accumulate;

    @Option(
            names = "--zero",
            paramLabel = "STAGE",
            defaultValue = "0",
            description = "ZeRO stage: 0 every device holds everything (the notebook), 1 shards the optimizer's state,"
                    + " 2 also the gradients, 3 also the parameters (FSDP). The update is the same. Default:"
                    + " ${DEFAULT-VALUE}.")
    int zero;

    @Option(
            names = "--batchnorm",
            paramLabel = "local|sync",
            defaultValue = "local",
            converter = BatchNormConverter.class,
            description = "BatchNorm's statistics: local, each device over its own shard (nn.DataParallel and DDP;"
                    + " the running statistics kept are device 0's), or sync, over the whole global batch on every"
                    + " device and process (nn.SyncBatchNorm, two small all-reduces in each BatchNorm's forward pass"
                    + " and one in its backward). Default: ${DEFAULT-VALUE}.")
    BatchNormStatistics batchNorm;

    /** {@code local} or {@code sync}, in lower case as the option is written. */
    static final class BatchNormConverter implements CommandLine.ITypeConverter<BatchNormStatistics> {
        @Override
        public BatchNormStatistics convert(String value) {
            return switch (value) {
                case "local" -> BatchNormStatistics.LOCAL;
                case "sync" -> BatchNormStatistics.SYNC;
                default ->
                    throw new CommandLine.TypeConversionException("'" + value + "' is neither local (each device's"
                            + " own statistics) nor sync (the whole batch's)");
            };
        }
    }

    /** Checked before anything starts: a line naming the option at fault. */
    void check() {
        UserError.requireOneOrMore("--accumulate", accumulate);
        if (zero < 0 || zero > 3) {
            throw new UserError(
                    "--zero must be a ZeRO stage, 0 (nothing sharded) to 3 (parameters sharded), not " + zero);
        }
    }

    /** {@code config} taking steps as asked. */
    TrainConfig apply(TrainConfig config) {
        check();
        return config.withAccumulate(accumulate).withZero(ZeroStage.of(zero)).withBatchNorm(batchNorm);
    }
}
