/**
 * Backend {@code djl}: every kernel as libtorch operations through DJL's PyTorch engine, on CUDA GPUs or the
 * processor; the outside referee of our own kernels. Offline, each call in its own {@code NDManager}; a device trains
 * only once its convolutions pass a float64 self-test. Depends on {@code device-api} and DJL only.
 */
package org.multigpulab.backend.djl;
