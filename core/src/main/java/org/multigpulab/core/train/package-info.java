/**
 * The data-parallel trainer, step for step as the notebook's {@code train_batch} and {@code train}, and
 * {@code DataParallel}, the concise API of d2l §12.6. All options are one immutable {@code TrainConfig}, built before
 * training; progress, plots and reports attach as {@code TrainingListener}s, checkpoints as {@code Checkpoints}.
 * Written once for every backend: nothing here names one.
 */
package org.multigpulab.core.train;
