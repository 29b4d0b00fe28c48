package org.multigpulab.backend.opencl;

import org.multigpulab.device.DeviceException;

/** An OpenCL call failed; the message names the function and the error code by name. */
final class OpenClException extends DeviceException {

    OpenClException(String message) {
        super(message);
    }

    OpenClException(String message, Throwable cause) {
        super(message, cause);
    }
}
