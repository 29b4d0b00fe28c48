// Average pooling over K x K windows with stride S of independent H x W planes; OH = (H - K) / S + 1.
// The relu_ kernels are ReLU and pooling fused: the same sums of the same values, with no ReLU stored between.

// the mean of the window of output id of x, of each value's ReLU when rectify is set
float window_mean(__global const float* x, int id, int H, int W, int K, int S, bool rectify) {
    int OH = (H - K) / S + 1, OW = (W - K) / S + 1;
    int j = id % OW, i = (id / OW) % OH, plane = id / (OW * OH);
    float sum = 0.0f;
    for (int p = 0; p < K; p++)
        for (int q = 0; q < K; q++) {
            float v = x[(plane * H + i * S + p) * W + j * S + q];
            sum += rectify && v <= 0.0f ? 0.0f : v;   // relu_forward's comparison: a NaN stays
        }
    return sum / (K * K);
}

// the sum of dy / (K*K) over the windows that cover input id; zero where none does
float window_gradient(__global const float* dy, int id, int H, int W, int K, int S) {
    int OH = (H - K) / S + 1, OW = (W - K) / S + 1;
    int v = id % W, h = (id / W) % H, plane = id / (W * H);
    float sum = 0.0f;
    for (int i = min(h / S, OH - 1); i >= 0 && i * S + K > h; i--)
        for (int j = min(v / S, OW - 1); j >= 0 && j * S + K > v; j--)
            sum += dy[(plane * OH + i) * OW + j];
    return sum / (K * K);
}

__kernel void avg_pool_forward(__global const float* x, int xo, __global float* y, int yo,
                               int H, int W, int K, int S) {
    int id = get_global_id(0);
    y[yo + id] = window_mean(x + xo, id, H, W, K, S, false);
}

__kernel void avg_pool_backward(__global const float* dy, int dyo, __global float* dx, int dxo,
                                int H, int W, int K, int S) {
    int id = get_global_id(0);
    dx[dxo + id] = window_gradient(dy + dyo, id, H, W, K, S);
}

__kernel void relu_avg_pool_forward(__global const float* x, int xo, __global float* y, int yo,
                                    int H, int W, int K, int S) {
    int id = get_global_id(0);
    y[yo + id] = window_mean(x + xo, id, H, W, K, S, true);
}

__kernel void relu_avg_pool_backward(__global const float* x, int xo, __global const float* dy, int dyo,
                                     __global float* dx, int dxo, int H, int W, int K, int S) {
    int id = get_global_id(0);
    dx[dxo + id] = x[xo + id] > 0.0f ? window_gradient(dy + dyo, id, H, W, K, S) : 0.0f;
}
