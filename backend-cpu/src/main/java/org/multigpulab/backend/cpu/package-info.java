/**
 * Backend {@code cpu}: the processor as one device, {@code cpu:0}, with pure-Java kernels on the Vector API.
 * Convolutions are matrix multiplies over panels packed just before use; sums over the batch are added in a fixed
 * order, so a run gives the same bits every time on the same machine. Rules that keep C2 from boxing vectors: one
 * vector species everywhere, and no method that takes both masked and unmasked steps of the same data
 * (docs/ARCHITECTURE.md). Depends on {@code device-api} only.
 */
package org.multigpulab.backend.cpu;
