/**
 * {@code --dist mpi}: Open MPI's C API bound through {@code java.lang.foreign}, as a {@code core}
 * {@code ProcessGroup}, found by name at run time. Names no backend and no lesson; nothing but the run-time lookup
 * reaches it.
 */
package org.multigpulab.dist.mpi;
