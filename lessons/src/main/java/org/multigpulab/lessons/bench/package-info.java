/**
 * The epoch benchmark's yardstick: the processor's FP32 peak as Java reaches it, vector fused multiply-adds on
 * registers on every core.
 */
package org.multigpulab.lessons.bench;
