/**
 * {@code ./lab notebook}: the lab's Jupyter kernel spec, Jupyter run as a child process, and the command line with
 * the notebook command added. Sees {@code core}, {@code device-api} and the lessons; names no backend and no
 * {@code dist}, and nothing else names it.
 */
package org.multigpulab.jupyter;
