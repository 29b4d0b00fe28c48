package org.multigpulab.device;

/**
 * A convolution whose output, with its bias and a ReLU, goes straight into average pooling over square windows:
 * the notebook's {@code F.avg_pool2d(F.relu(F.conv2d(X, W1, b1)), kernel_size=2, stride=2)}. The pooling's planes
 * are the convolution's output channels of each image. Immutable.
 */
public record ConvPoolShape(ConvShape conv, int window, int stride) {

    public ConvPoolShape {
        if (conv == null) {
            throw new DeviceException("a convolution and pooling shape needs the convolution's shape");
        }
        pool(conv, window, stride); // checks the window against the convolution's output
    }

    /** The pooling as {@link KernelOp.ReluAvgPoolForward} takes it: over the convolution's output planes. */
    public PoolShape pool() {
        return pool(conv, window, stride);
    }

    private static PoolShape pool(ConvShape conv, int window, int stride) {
        return new PoolShape(conv.batch() * conv.outChannels(), conv.outHeight(), conv.outWidth(), window, stride);
    }

    /** The pooled output's length: batch × output channels × pooled height × pooled width. */
    public int outputLength() {
        return pool().outputLength();
    }
}
