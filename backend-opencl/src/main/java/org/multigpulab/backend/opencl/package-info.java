/**
 * Backend {@code opencl}: our own kernels in OpenCL C ({@code kernels/*.cl}, one per op, named as the op), on GPUs
 * through their drivers and on any processor through PoCL, with the C API bound through {@code java.lang.foreign}.
 * Kernel times are the device's own, from OpenCL's profiling counters. Depends on {@code device-api} only.
 */
package org.multigpulab.backend.opencl;
