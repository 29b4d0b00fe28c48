/**
 * The kernels' contracts in float64 ({@code Reference}), written as directly as the math: the yardstick of the
 * conformance kit (this module's test-jar) and of backends' start-up self-tests. A new kernel op gets its method
 * here. Slow on purpose; nothing here is for training.
 */
package org.multigpulab.device.conformance;
