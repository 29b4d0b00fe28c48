package org.multigpulab.device;

/**
 * A 2-D convolution with stride 1 and no padding (the seed's two convolutions), cuDNN-style:
 * input {@code x[batch, inChannels, height, width]}, filter {@code w[outChannels, inChannels, kernelHeight,
 * kernelWidth]}, output {@code y[batch, outChannels, outHeight, outWidth]}. Immutable.
 */
public record ConvShape(
        int batch, int inChannels, int height, int width, int outChannels, int kernelHeight, int kernelWidth) {

    public ConvShape {
        if (batch <= 0
                || inChannels <= 0
                || outChannels <= 0
                || kernelHeight <= 0
                || kernelWidth <= 0
                || height < kernelHeight
                || width < kernelWidth) {
            throw new DeviceException("invalid convolution shape " + this);
        }
    }

    public int outHeight() {
        return height - kernelHeight + 1;
    }

    public int outWidth() {
        return width - kernelWidth + 1;
    }

    public int inputLength() {
        return batch * inChannels * height * width;
    }

    public int filterLength() {
        return outChannels * inChannels * kernelHeight * kernelWidth;
    }

    public int outputLength() {
        return batch * outChannels * outHeight() * outWidth();
    }

    /** Multiply-adds times two: the FLOPs of the forward pass, and of each of the two backward passes. */
    public long flops() {
        return 2L * batch * outChannels * outHeight() * outWidth() * inChannels * kernelHeight * kernelWidth;
    }

    /** The output as a bias sees it: a bias per output channel over each image's planes. */
    public BiasShape bias() {
        return new BiasShape(batch, outChannels, outHeight() * outWidth());
    }

    public ConvShape withBatch(int newBatch) {
        return new ConvShape(newBatch, inChannels, height, width, outChannels, kernelHeight, kernelWidth);
    }
}
