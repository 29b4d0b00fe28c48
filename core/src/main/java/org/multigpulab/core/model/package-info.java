/**
 * The models the trainer trains, as the notebook writes them: a {@code Model} is named parameters with shapes and
 * initialisation plus a forward pass on a tape ({@code LeNet}, the notebook's; {@code Mlp}, d2l's); host tensors of
 * parameters, and the distances between two sets of them. Shapes are stated where tensors are made.
 */
package org.multigpulab.core.model;
