package org.multigpulab.core.data;

/** The shape of one image, {@code channels × height × width}, as a data set holds it and a model takes it. */
public record ImageShape(int channels, int height, int width) {

    public ImageShape {
        if (channels <= 0 || height <= 0 || width <= 0) {
            throw new IllegalArgumentException("an image has at least one channel, row and column, not " + this);
        }
    }

    /** The values of one image. */
    public int length() {
        return channels * height * width;
    }

    /** {@code 1×28×28}. */
    @Override
    public String toString() {
        return channels + "×" + height + "×" + width;
    }
}
