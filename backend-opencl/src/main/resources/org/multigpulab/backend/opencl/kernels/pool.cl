// Average pooling over K x K windows with stride S of independent H x W planes; OH = (H - K) / S + 1.

// y[plane,i,j] = mean of the window at (i*S, j*S)
__kernel void avg_pool_forward(__global const float* x, int xo, __global float* y, int yo,
                               int H, int W, int K, int S) {
    int OH = (H - K) / S + 1, OW = (W - K) / S + 1;
    int id = get_global_id(0);
    int j = id % OW, i = (id / OW) % OH, plane = id / (OW * OH);
    float sum = 0.0f;
    for (int p = 0; p < K; p++)
        for (int q = 0; q < K; q++)
            sum += x[xo + (plane * H + i * S + p) * W + j * S + q];
    y[yo + id] = sum / (K * K);
}

// dx[plane,h,v] = sum of dy / (K*K) over the windows that cover (h, v); zero where none does
__kernel void avg_pool_backward(__global const float* dy, int dyo, __global float* dx, int dxo,
                                int H, int W, int K, int S) {
    int OH = (H - K) / S + 1, OW = (W - K) / S + 1;
    int id = get_global_id(0);
    int v = id % W, h = (id / W) % H, plane = id / (W * H);
    float sum = 0.0f;
    for (int i = min(h / S, OH - 1); i >= 0 && i * S + K > h; i--)
        for (int j = min(v / S, OW - 1); j >= 0 && j * S + K > v; j--)
            sum += dy[dyo + (plane * OH + i) * OW + j];
    dx[dxo + id] = sum / (K * K);
}
