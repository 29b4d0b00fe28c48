package org.multigpulab.device;

/**
 * Pooling over square windows of {@code planes} independent {@code height × width} planes
 * ({@code planes = batch × channels}), the windows {@code stride} apart over the planes with {@code padding} rows and
 * columns around them that no window's value takes (a max pooling's −∞); output planes are
 * {@code outHeight × outWidth}, rows and columns that do not fill a window are dropped (PyTorch's floor mode). As
 * PyTorch, the padding is at most half the window. Average pooling takes no padding. Immutable.
 */
public record PoolShape(int planes, int height, int width, int window, int stride, int padding) {

    public PoolShape {
        if (planes <= 0
                || window <= 0
                || stride <= 0
                || padding < 0
                || padding > window / 2
                || height + 2 * padding < window
                || width + 2 * padding < window) {
            throw new DeviceException("invalid pooling shape " + this);
        }
    }

    /** Windows without padding, as average pooling takes them. */
    public PoolShape(int planes, int height, int width, int window, int stride) {
        this(planes, height, width, window, stride, 0);
    }

    public int outHeight() {
        return (height + 2 * padding - window) / stride + 1;
    }

    public int outWidth() {
        return (width + 2 * padding - window) / stride + 1;
    }

    public int inputLength() {
        return planes * height * width;
    }

    public int outputLength() {
        return planes * outHeight() * outWidth();
    }
}
