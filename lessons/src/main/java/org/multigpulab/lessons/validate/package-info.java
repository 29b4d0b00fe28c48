/**
 * The cost model checked against this machine's wall clock: logical GPUs timed as the physical device
 * ({@code --profile host}), their simulated epoch against the measured one, and the chart of the two.
 */
package org.multigpulab.lessons.validate;
