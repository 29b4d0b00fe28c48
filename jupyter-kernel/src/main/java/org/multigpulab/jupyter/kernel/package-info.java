/**
 * The Java kernel itself: Jupyter's messages (through {@code jjava-jupyter}) served by the JDK's JShell in this
 * JVM, cells cut into snippets, output streamed to the cell that runs, errors named by cell and line, a last
 * expression's value handed back for display.
 */
package org.multigpulab.jupyter.kernel;
