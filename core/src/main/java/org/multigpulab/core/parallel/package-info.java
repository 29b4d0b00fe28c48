/**
 * Data parallelism's moving parts, with NCCL's and PyTorch's names: {@code Replica} ({@code get_params}),
 * {@code Scatter} ({@code nn.parallel.scatter}, {@code split_batch}), {@code Collectives} ({@code allReduce},
 * {@code reduce}, {@code broadcast}, {@code reduceScatter}, {@code allGather}; the algorithm a value, never a method
 * name) and {@code GradientSync}, which sums gradients per parameter or in buckets, then across processes, as DDP's
 * {@code Reducer} does.
 */
package org.multigpulab.core.parallel;
