/**
 * What a run prints as it goes: a line per epoch, progress bars on a terminal, the data download.
 */
package org.multigpulab.lessons.console;
