// Convolution, one work-item per element it writes, the filter moved S pixels at a time over the input with P
// zeros around it (PyTorch's nn.Conv2d(..., stride=S, padding=P)); the zeros are never read, each sum runs over the
// taps inside the image alone, in the order of stride 1 without padding, which gives LeNet's layers their bits. The
// gradients that sum over the batch also come _by_groups, a work-group per element (reduce.cl), which a GPU device
// takes: one work-item per weight leaves it all but idle on a layer of 20 channels.
//   x [N, C, H, W]   w [O, C, KH, KW]   y [N, O, OH, OW]   with OH = (H + 2P - KH) / S + 1, OW = (W + 2P - KW) / S + 1
// Every buffer comes with an element offset (xo, wo, ...), so a kernel can work on part of a buffer.

// y[n,o,i,j] = sum over c and the taps (p,q) inside the image of x[n,c,iS-P+p,jS-P+q] * w[o,c,p,q]. Without padding
// every tap is inside and the loops run over the whole filter, their bounds the same in every work-item, which PoCL
// needs to vectorise across work-items: the bounds clipped to the image, or a branch on P around the loops within one
// function, took LeNet's conv1 1.5 to 2 times as long there.
float convolved_unpadded(__global const float* x, int xo, __global const float* w, int wo, int id,
                         int C, int H, int W, int O, int KH, int KW, int S) {
    int OH = (H - KH) / S + 1, OW = (W - KW) / S + 1;
    int j = id % OW, i = (id / OW) % OH, o = (id / (OW * OH)) % O, n = id / (OW * OH * O);
    int top = i * S, left = j * S;   // the window's corner in x
    float sum = 0.0f;
    for (int c = 0; c < C; c++)
        for (int p = 0; p < KH; p++)
            for (int q = 0; q < KW; q++)
                sum += x[xo + ((n * C + c) * H + top + p) * W + left + q] * w[wo + ((o * C + c) * KH + p) * KW + q];
    return sum;
}

float convolved_padded(__global const float* x, int xo, __global const float* w, int wo, int id,
                       int C, int H, int W, int O, int KH, int KW, int S, int P) {
    int OH = (H + 2 * P - KH) / S + 1, OW = (W + 2 * P - KW) / S + 1;
    int j = id % OW, i = (id / OW) % OH, o = (id / (OW * OH)) % O, n = id / (OW * OH * O);
    int top = i * S - P, left = j * S - P;   // the window's corner in x, in the padding where negative
    int p0 = max(0, -top), p1 = min(KH, H - top), q0 = max(0, -left), q1 = min(KW, W - left);
    float sum = 0.0f;
    for (int c = 0; c < C; c++)
        for (int p = p0; p < p1; p++)
            for (int q = q0; q < q1; q++)
                sum += x[xo + ((n * C + c) * H + top + p) * W + left + q] * w[wo + ((o * C + c) * KH + p) * KW + q];
    return sum;
}

__kernel void conv2d_forward(__global const float* x, int xo, __global const float* w, int wo,
                             __global float* y, int yo,
                             int N, int C, int H, int W, int O, int KH, int KW, int S, int P) {
    int id = get_global_id(0);
    if (P == 0)
        y[yo + id] = convolved_unpadded(x, xo, w, wo, id, C, H, W, O, KH, KW, S);
    else
        y[yo + id] = convolved_padded(x, xo, w, wo, id, C, H, W, O, KH, KW, S, P);
}

// the convolution then its bias, as conv2d_forward then bias_add give it
__kernel void conv2d_bias_forward(__global const float* x, int xo, __global const float* w, int wo,
                                  __global const float* b, int bo, __global float* y, int yo,
                                  int N, int C, int H, int W, int O, int KH, int KW, int S, int P) {
    int id = get_global_id(0);
    if (P == 0)
        y[yo + id] = convolved_unpadded(x, xo, w, wo, id, C, H, W, O, KH, KW, S)
                     + b[bo + id / (((H - KH) / S + 1) * ((W - KW) / S + 1)) % O];
    else
        y[yo + id] = convolved_padded(x, xo, w, wo, id, C, H, W, O, KH, KW, S, P)
                     + b[bo + id / (((H + 2 * P - KH) / S + 1) * ((W + 2 * P - KW) / S + 1)) % O];
}

// dx[n,c,h,v] = sum over o and the taps (p,q) that reached (h,v) from an output (i,j): iS - P + p = h, jS - P + q = v.
// Such taps p are those of p = h + P (mod S) with 0 <= i < OH: with stride 1, max(0, h + P - OH + 1) to
// min(KH - 1, h + P), the loops of stride 1 kept as they are for LeNet. Where no window covers (h,v), dx is 0.
__kernel void conv2d_backward_data(__global const float* dy, int dyo, __global const float* w, int wo,
                                   __global float* dx, int dxo,
                                   int N, int C, int H, int W, int O, int KH, int KW, int S, int P) {
    int OH = (H + 2 * P - KH) / S + 1, OW = (W + 2 * P - KW) / S + 1;
    int id = get_global_id(0);
    int v = id % W, h = (id / W) % H, c = (id / (W * H)) % C, n = id / (W * H * C);
    int hp = h + P, vp = v + P;   // (h,v) in the padded image
    float sum = 0.0f;
    if (S == 1) {
        for (int o = 0; o < O; o++)
            for (int p = max(0, hp - OH + 1); p <= min(KH - 1, hp); p++)
                for (int q = max(0, vp - OW + 1); q <= min(KW - 1, vp); q++)
                    sum += dy[dyo + ((n * O + o) * OH + hp - p) * OW + vp - q] * w[wo + ((o * C + c) * KH + p) * KW + q];
    } else {
        int pl = max(0, hp - (OH - 1) * S), ql = max(0, vp - (OW - 1) * S);
        int p0 = pl + (hp - pl) % S, p1 = min(KH - 1, hp), q0 = ql + (vp - ql) % S, q1 = min(KW - 1, vp);
        for (int o = 0; o < O; o++)
            for (int p = p0, i = (hp - p0) / S; p <= p1; p += S, i--)
                for (int q = q0, j = (vp - q0) / S; q <= q1; q += S, j--)
                    sum += dy[dyo + ((n * O + o) * OH + i) * OW + j] * w[wo + ((o * C + c) * KH + p) * KW + q];
    }
    dx[dxo + id] = sum;
}

// The outputs (i,j) whose window puts tap (p,q) inside the image: rows i0 <= i < i0 + ni, columns j0 <= j < j0 + nj
// (all OH x OW with stride 1 and no padding).
int first_inside(int tap, int S, int P) {
    return tap < P ? (P - tap + S - 1) / S : 0;
}

int count_inside(int first, int tap, int size, int outSize, int S, int P) {
    int last = size - 1 + P - tap;   // the last output's window corner, times S, that keeps the tap inside
    return last < 0 ? 0 : max(0, min(outSize, last / S + 1) - first);
}

// x[n,c,r,s] * dy[n,o,i,j], a term of dw[o,c,p,q] with (r,s) = (iS - P + p, jS - P + q) inside the image
float filter_term(__global const float* x, int xo, __global const float* dy, int dyo,
                  int C, int H, int W, int O, int OH, int OW, int S, int P,
                  int o, int c, int p, int q, int n, int i, int j) {
    return x[xo + ((n * C + c) * H + i * S - P + p) * W + j * S - P + q] * dy[dyo + ((n * O + o) * OH + i) * OW + j];
}

// dw[o,c,p,q] = sum over n and the outputs (i,j) that put the tap inside the image of x[n,c,iS-P+p,jS-P+q] * dy[n,o,i,j]
__kernel void conv2d_backward_filter(__global const float* x, int xo, __global const float* dy, int dyo,
                                     __global float* dw, int dwo,
                                     int N, int C, int H, int W, int O, int KH, int KW, int S, int P) {
    int OH = (H + 2 * P - KH) / S + 1, OW = (W + 2 * P - KW) / S + 1;
    int id = get_global_id(0);
    int q = id % KW, p = (id / KW) % KH, c = (id / (KW * KH)) % C, o = id / (KW * KH * C);
    int i0 = first_inside(p, S, P), j0 = first_inside(q, S, P);
    int i1 = i0 + count_inside(i0, p, H, OH, S, P), j1 = j0 + count_inside(j0, q, W, OW, S, P);
    float sum = 0.0f;
    for (int n = 0; n < N; n++)
        for (int i = i0; i < i1; i++)
            for (int j = j0; j < j1; j++)
                sum += filter_term(x, xo, dy, dyo, C, H, W, O, OH, OW, S, P, o, c, p, q, n, i, j);
    dw[dwo + id] = sum;
}

// the same, a work-group per weight (reduce.cl)
__kernel __attribute__((reqd_work_group_size(GROUP, 1, 1)))
void conv2d_backward_filter_by_groups(__global const float* x, int xo, __global const float* dy, int dyo,
                                      __global float* dw, int dwo,
                                      int N, int C, int H, int W, int O, int KH, int KW, int S, int P) {
    __local float partial[GROUP];
    int OH = (H + 2 * P - KH) / S + 1, OW = (W + 2 * P - KW) / S + 1;
    int id = get_group_id(0);
    int q = id % KW, p = (id / KW) % KH, c = (id / (KW * KH)) % C, o = id / (KW * KH * C);
    int i0 = first_inside(p, S, P), j0 = first_inside(q, S, P);
    int ni = count_inside(i0, p, H, OH, S, P), nj = count_inside(j0, q, W, OW, S, P);
    float sum = 0.0f;
    for (int t = get_local_id(0); t < N * ni * nj; t += GROUP)
        sum += filter_term(x, xo, dy, dyo, C, H, W, O, OH, OW, S, P, o, c, p, q,
                           t / (nj * ni), i0 + (t / nj) % ni, j0 + t % nj);
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
