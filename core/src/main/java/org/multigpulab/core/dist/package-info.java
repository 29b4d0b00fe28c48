/**
 * Training across processes as {@code torch.distributed} sees it: a {@code ProcessGroup} of ranks that sum arrays
 * and share rank 0's data. Implementations (such as {@code dist-mpi}'s) are found by name at run time; {@code core}
 * never names one.
 */
package org.multigpulab.core.dist;
