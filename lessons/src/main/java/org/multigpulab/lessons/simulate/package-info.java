/**
 * Simulated epochs for the command line: one epoch timed on GPUs that compute nothing, and the notebook's host
 * program's epoch beside the GPUs' own.
 */
package org.multigpulab.lessons.simulate;
