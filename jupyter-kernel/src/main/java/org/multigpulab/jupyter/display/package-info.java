/**
 * What a notebook cell can show beyond text: charts as PNG and SVG, outputs redrawn in place (Jupyter's
 * {@code display_id}), a one-line progress bar, and the helpers imported into every cell ({@code Notebook}).
 */
package org.multigpulab.jupyter.display;
