// Convolution with stride 1 and no padding, one work-item per element it writes. The gradients that sum over the
// batch also come _by_groups, a work-group per element (reduce.cl), which a GPU device takes: one work-item per
// weight leaves it all but idle on a layer of 20 channels.
//   x [N, C, H, W]   w [O, C, KH, KW]   y [N, O, OH, OW]   with OH = H - KH + 1, OW = W - KW + 1
// Every buffer comes with an element offset (xo, wo, ...), so a kernel can work on part of a buffer.

// y[n,o,i,j] = sum over c,p,q of x[n,c,i+p,j+q] * w[o,c,p,q]
float convolved(__global const float* x, int xo, __global const float* w, int wo, int id,
                int C, int H, int W, int O, int KH, int KW) {
    int OH = H - KH + 1, OW = W - KW + 1;
    int j = id % OW, i = (id / OW) % OH, o = (id / (OW * OH)) % O, n = id / (OW * OH * O);
    float sum = 0.0f;
    for (int c = 0; c < C; c++)
        for (int p = 0; p < KH; p++)
            for (int q = 0; q < KW; q++)
                sum += x[xo + ((n * C + c) * H + i + p) * W + j + q] * w[wo + ((o * C + c) * KH + p) * KW + q];
    return sum;
}

__kernel void conv2d_forward(__global const float* x, int xo, __global const float* w, int wo,
                             __global float* y, int yo,
                             int N, int C, int H, int W, int O, int KH, int KW) {
    int id = get_global_id(0);
    y[yo + id] = convolved(x, xo, w, wo, id, C, H, W, O, KH, KW);
}

// the convolution then its bias, as conv2d_forward then bias_add give it
__kernel void conv2d_bias_forward(__global const float* x, int xo, __global const float* w, int wo,
                                  __global const float* b, int bo, __global float* y, int yo,
                                  int N, int C, int H, int W, int O, int KH, int KW) {
    int id = get_global_id(0);
    int o = (id / ((H - KH + 1) * (W - KW + 1))) % O;
    y[yo + id] = convolved(x, xo, w, wo, id, C, H, W, O, KH, KW) + b[bo + o];
}

// dx[n,c,h,v] = sum over o and the filter taps (p,q) that reached (h,v) from an output (h-p, v-q)
__kernel void conv2d_backward_data(__global const float* dy, int dyo, __global const float* w, int wo,
                                   __global float* dx, int dxo,
                                   int N, int C, int H, int W, int O, int KH, int KW) {
    int OH = H - KH + 1, OW = W - KW + 1;
    int id = get_global_id(0);
    int v = id % W, h = (id / W) % H, c = (id / (W * H)) % C, n = id / (W * H * C);
    float sum = 0.0f;
    for (int o = 0; o < O; o++)
        for (int p = max(0, h - OH + 1); p <= min(KH - 1, h); p++)
            for (int q = max(0, v - OW + 1); q <= min(KW - 1, v); q++)
                sum += dy[dyo + ((n * O + o) * OH + h - p) * OW + v - q] * w[wo + ((o * C + c) * KH + p) * KW + q];
    dx[dxo + id] = sum;
}

// x[n,c,i+p,j+q] * dy[n,o,i,j], a term of dw[o,c,p,q]
float filter_term(__global const float* x, int xo, __global const float* dy, int dyo,
                  int C, int H, int W, int O, int OH, int OW, int o, int c, int p, int q, int n, int i, int j) {
    return x[xo + ((n * C + c) * H + i + p) * W + j + q] * dy[dyo + ((n * O + o) * OH + i) * OW + j];
}

// dw[o,c,p,q] = sum over n,i,j of x[n,c,i+p,j+q] * dy[n,o,i,j]
__kernel void conv2d_backward_filter(__global const float* x, int xo, __global const float* dy, int dyo,
                                     __global float* dw, int dwo,
                                     int N, int C, int H, int W, int O, int KH, int KW) {
    int OH = H - KH + 1, OW = W - KW + 1;
    int id = get_global_id(0);
    int q = id % KW, p = (id / KW) % KH, c = (id / (KW * KH)) % C, o = id / (KW * KH * C);
    float sum = 0.0f;
    for (int n = 0; n < N; n++)
        for (int i = 0; i < OH; i++)
            for (int j = 0; j < OW; j++)
                sum += filter_term(x, xo, dy, dyo, C, H, W, O, OH, OW, o, c, p, q, n, i, j);
    dw[dwo + id] = sum;
}

// the same, a work-group per weight (reduce.cl)
__kernel __attribute__((reqd_work_group_size(GROUP, 1, 1)))
void conv2d_backward_filter_by_groups(__global const float* x, int xo, __global const float* dy, int dyo,
                                      __global float* dw, int dwo,
                                      int N, int C, int H, int W, int O, int KH, int KW) {
    __local float partial[GROUP];
    int OH = H - KH + 1, OW = W - KW + 1;
    int id = get_group_id(0);
    int q = id % KW, p = (id / KW) % KH, c = (id / (KW * KH)) % C, o = id / (KW * KH * C);
    float sum = 0.0f;
    for (int t = get_local_id(0); t < N * OH * OW; t += GROUP)
        sum += filter_term(x, xo, dy, dyo, C, H, W, O, OH, OW, o, c, p, q, t / (OW * OH), (t / OW) % OH, t % OW);
    sum = group_sum(partial, sum);
    if (get_local_id(0) == 0)
        dw[dwo + id] = sum;
}

// y[t,c,k] += b[c] for y seen as [outer, C, inner]
__kernel void bias_add(__global float* y, int yo, __global const float* b, int bo, int C, int inner) {
    int id = get_global_id(0);
    y[yo + id] += b[bo + (id / inner) % C];
}

// dy[t,c,k], a term of db[c]
float bias_term(__global const float* dy, int dyo, int C, int inner, int c, int t, int k) {
    return dy[dyo + (t * C + c) * inner + k];
}

// db[c] = sum over t,k of dy[t,c,k]
__kernel void bias_add_backward(__global const float* dy, int dyo, __global float* db, int dbo,
                                int outer, int C, int inner) {
    int c = get_global_id(0);
    float sum = 0.0f;
    for (int t = 0; t < outer; t++)
        for (int k = 0; k < inner; k++)
            sum += bias_term(dy, dyo, C, inner, c, t, k);
    db[dbo + c] = sum;
}

// the same, a work-group per channel (reduce.cl)
__kernel __attribute__((reqd_work_group_size(GROUP, 1, 1)))
void bias_add_backward_by_groups(__global const float* dy, int dyo, __global float* db, int dbo,
                                 int outer, int C, int inner) {
    __local float partial[GROUP];
    int c = get_group_id(0);
    float sum = 0.0f;
    for (int tk = get_local_id(0); tk < outer * inner; tk += GROUP)
        sum += bias_term(dy, dyo, C, inner, c, tk / inner, tk % inner);
    sum = group_sum(partial, sum);
    if (get_local_id(0) == 0)
        db[dbo + c] = sum;
}
