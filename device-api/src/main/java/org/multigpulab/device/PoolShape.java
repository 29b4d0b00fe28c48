package org.multigpulab.device;

/**
 * Average pooling over square windows of {@code planes} independent {@code height × width} planes
 * ({@code planes = batch × channels}); output planes are {@code outHeight × outWidth}, rows and columns that
 * do not fill a window are dropped (PyTorch's floor mode). Immutable.
 */
public record PoolShape(int planes, int height, int width, int window, int stride) {

    public PoolShape {
        if (planes <= 0 || window <= 0 || stride <= 0 || height < window || width < window) {
            throw new DeviceException("invalid pooling shape " + this);
        }
    }

    public int outHeight() {
        return (height - window) / stride + 1;
    }

    public int outWidth() {
        return (width - window) / stride + 1;
    }

    public int inputLength() {
        return planes * height * width;
    }

    public int outputLength() {
        return planes * outHeight() * outWidth();
    }
}
