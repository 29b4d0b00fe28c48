/**
 * {@code ./lab collectives}' side of nccl-tests: sizes as it reads them, its rows and bus bandwidth, and published
 * measurements of real systems (kept in this module's resources) with the model's error on each.
 */
package org.multigpulab.lessons.collectives;
