/**
 * Reverse-mode autograd over {@code Kernels}: a {@code Tape} per device and step, {@code Tensor}s on device
 * buffers, and {@code Ops}, each forward step with its backward step beside it, as micrograd keeps them. Fused kernel
 * ops are chosen here (a ReLU or a convolution is written when first read), never by the model. Like all of
 * {@code core}, it names no backend: devices come in as {@code device-api} types.
 */
package org.multigpulab.core.autograd;
