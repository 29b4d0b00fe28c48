package org.multigpulab.device;

/**
 * How a bias vector of {@code channels} broadcasts over a tensor viewed as {@code [outer, channels, inner]}:
 * a dense layer's output is {@code [batch, features, 1]}, a convolution's is {@code [batch, channels, h·w]}.
 * Immutable.
 */
public record BiasShape(int outer, int channels, int inner) {

    public BiasShape {
        if (outer <= 0 || channels <= 0 || inner <= 0) {
            throw new DeviceException("invalid bias shape " + this);
        }
    }

    public int length() {
        return outer * channels * inner;
    }
}
