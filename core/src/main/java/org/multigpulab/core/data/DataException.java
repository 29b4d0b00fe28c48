package org.multigpulab.core.data;

/** The data set could not be found, read or trusted; the message names the file, the problem and the fix. */
public final class DataException extends RuntimeException {

    public DataException(String message) {
        super(message);
    }

    public DataException(String message, Throwable cause) {
        super(message, cause);
    }
}
