/**
 * Backend {@code sim}: N logical GPUs over one physical device of any backend, found by name through
 * {@code ServiceLoader} (never named here), timed by a cost model of GPUs, links and hosts ({@code SimTimeline}),
 * with a measured {@code host} profile and NCCL's model of collectives. Also runs time-only, with no device under it.
 * Every figure of a profile or link carries its source. Depends on {@code device-api} only.
 */
package org.multigpulab.backend.sim;
