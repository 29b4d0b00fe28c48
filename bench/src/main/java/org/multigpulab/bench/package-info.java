/**
 * Kernel benchmarks at LeNet's shapes: JMH per kernel ({@code KernelBenchMain}) and a sequence of kernels in one
 * JVM ({@code KernelSequenceMain}), as a training step runs them. Backends are found at run time; nothing here is
 * used by training.
 */
package org.multigpulab.bench;
