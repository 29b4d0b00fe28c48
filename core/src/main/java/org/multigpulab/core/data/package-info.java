/**
 * Fashion-MNIST in host memory: locating, fetching and checking the four IDX files (SHA-256), reading them raw or
 * gzipped, and mini-batches in a {@code DataLoader}'s order, shuffled by a seed. Host-side only: nothing here touches
 * a device.
 */
package org.multigpulab.core.data;
