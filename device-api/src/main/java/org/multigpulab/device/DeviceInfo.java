package org.multigpulab.device;

/** What a device is: its id, a description for people, and its memory capacity in bytes. Immutable. */
public record DeviceInfo(DeviceId id, String description, long memoryBytes) {}
