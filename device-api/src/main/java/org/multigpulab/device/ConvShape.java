package org.multigpulab.device;

/**
 * A 2-D convolution, cuDNN-style: input {@code x[batch, inChannels, height, width]}, filter {@code w[outChannels,
 * inChannels, kernelHeight, kernelWidth]}, output {@code y[batch, outChannels, outHeight, outWidth]}, the filter
 * moved {@code stride} pixels at a time over the input with {@code padding} zeros around it, as PyTorch's
 * {@code nn.Conv2d(..., stride, padding)}. Immutable.
 */
public record ConvShape(
        int batch,
        int inChannels,
        int height,
        int width,
        int outChannels,
        int kernelHeight,
        int kernelWidth,
        int stride,
        int padding) {

    public ConvShape {
        if (batch <= 0
                || inChannels <= 0
                || outChannels <= 0
                || kernelHeight <= 0
                || kernelWidth <= 0
                || stride <= 0
                || padding < 0
                || height + 2 * padding < kernelHeight
                || width + 2 * padding < kernelWidth) {
            throw new DeviceException("invalid convolution shape " + this);
        }
    }

    /** A convolution of stride 1 without padding, as the notebook's LeNet has. */
    public ConvShape(
            int batch, int inChannels, int height, int width, int outChannels, int kernelHeight, int kernelWidth) {
        this(batch, inChannels, height, width, outChannels, kernelHeight, kernelWidth, 1, 0);
    }

    public int outHeight() {
        return (height + 2 * padding - kernelHeight) / stride + 1;
    }

    public int outWidth() {
        return (width + 2 * padding - kernelWidth) / stride + 1;
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
        return new ConvShape(
                newBatch, inChannels, height, width, outChannels, kernelHeight, kernelWidth, stride, padding);
    }
}
