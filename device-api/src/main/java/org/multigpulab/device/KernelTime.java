package org.multigpulab.device;

/**
 * One kernel at one size on a device: how often it was launched and the host-observed time inside those
 * calls. The FLOPs of one launch tell the layers apart (LeNet's two convolutions share a kernel name).
 */
public record KernelTime(String kernel, long flopsPerLaunch, long launches, long nanos) {}
