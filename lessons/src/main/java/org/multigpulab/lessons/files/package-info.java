/**
 * The files a run reads and writes: safetensors parameters, checkpoints, the JSON run report, Chrome traces, the
 * kernels of each epoch; each written whole or not at all, and checked before long work starts.
 */
package org.multigpulab.lessons.files;
