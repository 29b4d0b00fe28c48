/**
 * The device SPI every backend implements and everything above it uses: {@code Backend} (found with
 * {@code ServiceLoader}), {@code Device}, {@code Buffer}, {@code Kernels}, and one record per kernel op in
 * {@code KernelOp} (its buffers marked read, written or updated; its shape, needed elements and FLOPs), with device
 * ids, stats and the simulated-time interfaces. Depends on the JDK only. Each backend's {@code Kernels.launch} is one
 * exhaustive {@code switch} over the {@code KernelOp.Call} records, with no {@code default};
 * {@code InstrumentedKernels} checks, counts and times every call from its record, so backends need not.
 */
package org.multigpulab.device;
