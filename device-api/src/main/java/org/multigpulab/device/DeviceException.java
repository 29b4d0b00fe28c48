package org.multigpulab.device;

/**
 * A device could not do what was asked: a backend missing, too few devices, memory exhausted, a buffer used
 * on the wrong device, a shape that does not fit its buffers. The message is written for the student who
 * reads it: what went wrong and, where there is one, what to do.
 */
public class DeviceException extends RuntimeException {

    public DeviceException(String message) {
        super(message);
    }

    public DeviceException(String message, Throwable cause) {
        super(message, cause);
    }
}
