// BatchNorm (KernelOp.SquaredDeviations, BatchNormForward, BatchNormRunningUpdate, BatchNormBackwardReduce,
// BatchNormBackwardData) over x viewed as [outer, C, inner]: channel c's values are the outer planes x[t, c, :] of
// inner values each, count = outer * inner of them (up to 256 x 784 in ResNet-18 on 28 x 28 images).
//
// The per-channel sums run as work-group tree reductions. Each channel's values are cut into B blocks of `block`
// values (B and block come from the shape alone, never from the device, so a sum adds the same terms in the same
// order everywhere): a work-group of GROUP work-items per (channel, block), each work-item adding every GROUP-th
// value of the block in order, then their partials added as a tree in local memory (group_sum, reduce.cl). With one
// block the group writes the channel's sum; with more, each writes its block's partial sum into a scratch buffer of
// [rows, B] and sum_partials adds each row's B partials the same way, a work-group per row. Consecutive work-items
// read consecutive values of a plane: coalesced; and each finds its next value without an integer division.
//
// The element-wise kernels take one work-item per element over all of them, in work-groups of GROUP, the last
// work-items past the end idle (n is the number of elements).

// A work-item's walk over channel c's values t, t + GROUP, ... of x [outer, C, inner]: value t is x[plane, c, at] with
// plane = t / inner, at = t % inner, divided once; each step moves them on without dividing again.
typedef struct {
    int plane, at, planes, ats;   // where the walk is, and how far a step of GROUP values moves it
} walk;

walk walk_from(int t, int inner) {
    walk w = {t / inner, t % inner, GROUP / inner, GROUP % inner};
    return w;
}

int walk_index(walk w, int c, int C, int inner) {
    return (w.plane * C + c) * inner + w.at;
}

walk walk_on(walk w, int inner) {
    w.plane += w.planes;
    w.at += w.ats;
    if (w.at >= inner) {
        w.at -= inner;
        w.plane++;
    }
    return w;
}

// 1 / sqrt(var[c] + eps), as the float64 reference computes it, to float32's precision
float inverse_std(float var, float eps) {
    return 1.0f / sqrt(var + eps);
}

// m2[c] = sum over t of (x[t,c,:] - mean[c])^2: block b of channel c (group c * B + b) into out[oo + c * B + b]
__kernel __attribute__((reqd_work_group_size(GROUP, 1, 1)))
void squared_deviations(__global const float* x, int xo, __global const float* mean, int mo,
                        __global float* out, int oo, int C, int inner, int count, int B, int block) {
    __local float partial[GROUP];
    int row = get_group_id(0), c = row / B, b = row % B;
    int end = min(count, (b + 1) * block);
    float m = mean[mo + c], sum = 0.0f;
    walk at = walk_from(b * block + get_local_id(0), inner);
    for (int t = b * block + get_local_id(0); t < end; t += GROUP, at = walk_on(at, inner)) {
        float d = x[xo + walk_index(at, c, C, inner)] - m;
        sum += d * d;
    }
    sum = group_sum(partial, sum);
    if (get_local_id(0) == 0)
        out[oo + row] = sum;
}

// sum_dy[c] = sum of dy[t,c,:], sum_dy_xhat[c] = sum of dy[t,c,:] * (x[t,c,:] - mean[c]) / sqrt(var[c] + eps): block b
// of channel c (group c * B + b) into s1[s1o + c * B + b] and s2[s2o + c * B + b]; each block's sum of dy * (x - mean)
// is scaled by 1 / sqrt(var + eps) once
__kernel __attribute__((reqd_work_group_size(GROUP, 1, 1)))
void batch_norm_backward_reduce(__global const float* x, int xo, __global const float* dy, int dyo,
                                __global const float* mean, int mo, __global const float* var, int vo, float eps,
                                __global float* s1, int s1o, __global float* s2, int s2o,
                                int C, int inner, int count, int B, int block) {
    __local float partial[GROUP];
    int row = get_group_id(0), c = row / B, b = row % B;
    int end = min(count, (b + 1) * block);
    float m = mean[mo + c], sumDy = 0.0f, sumDyDev = 0.0f;
    walk at = walk_from(b * block + get_local_id(0), inner);
    for (int t = b * block + get_local_id(0); t < end; t += GROUP, at = walk_on(at, inner)) {
        int i = walk_index(at, c, C, inner);
        float g = dy[dyo + i];
        sumDy += g;
        sumDyDev += g * (x[xo + i] - m);
    }
    sumDy = group_sum(partial, sumDy);
    barrier(CLK_LOCAL_MEM_FENCE);   // every work-item has read partial[0] before it is written again
    sumDyDev = group_sum(partial, sumDyDev);
    if (get_local_id(0) == 0) {
        s1[s1o + row] = sumDy;
        s2[s2o + row] = sumDyDev * inverse_std(var[vo + c], eps);
    }
}

// out[row] = the sum of p[po + row * B + 0 .. B - 1], a work-group per row, into out1 for the first `rows1` rows and
// into out2 for the rest
__kernel __attribute__((reqd_work_group_size(GROUP, 1, 1)))
void sum_partials(__global const float* p, int po, int B, int rows1,
                  __global float* out1, int o1o, __global float* out2, int o2o) {
    __local float partial[GROUP];
    int row = get_group_id(0);
    float sum = 0.0f;
    for (int b = get_local_id(0); b < B; b += GROUP)
        sum += p[po + row * B + b];
    sum = group_sum(partial, sum);
    if (get_local_id(0) == 0) {
        if (row < rows1)
            out1[o1o + row] = sum;
        else
            out2[o2o + row - rows1] = sum;
    }
}

// y = (x - mean[c]) / sqrt(var[c] + eps) * gamma[c] + beta[c]
__kernel void batch_norm_forward(__global const float* x, int xo, __global const float* mean, int mo,
                                 __global const float* var, int vo, __global const float* gamma, int go,
                                 __global const float* beta, int bo, __global float* y, int yo,
                                 float eps, int C, int inner, int n) {
    int id = get_global_id(0);
    if (id >= n)
        return;
    int c = id / inner % C;
    y[yo + id] = (x[xo + id] - mean[mo + c]) * inverse_std(var[vo + c], eps) * gamma[go + c] + beta[bo + c];
}

// PyTorch's running statistics: rm = (1 - momentum) rm + momentum mean, rv = (1 - momentum) rv + momentum var
// count / (count - 1) (unbiased = count / (count - 1), from the host), tracked[0] += 1; a work-item per channel
__kernel void batch_norm_running_update(__global const float* mean, int mo, __global const float* var, int vo,
                                        __global float* rm, int rmo, __global float* rv, int rvo,
                                        __global float* tracked, int to, float momentum, float unbiased, int n) {
    int c = get_global_id(0);
    if (c >= n)
        return;
    rm[rmo + c] = (1.0f - momentum) * rm[rmo + c] + momentum * mean[mo + c];
    rv[rvo + c] = (1.0f - momentum) * rv[rvo + c] + momentum * (var[vo + c] * unbiased);
    if (c == 0)
        tracked[to] += 1.0f;
}

// dx = gamma[c] / sqrt(var[c] + eps) * (dy - sum_dy[c] / count - xhat * sum_dy_xhat[c] / count),
// xhat = (x - mean[c]) / sqrt(var[c] + eps)
__kernel void batch_norm_backward_data(__global const float* x, int xo, __global const float* dy, int dyo,
                                       __global const float* mean, int mo, __global const float* var, int vo,
                                       __global const float* gamma, int go, __global const float* sumDy, int s1o,
                                       __global const float* sumDyXhat, int s2o, __global float* dx, int dxo,
                                       float eps, float count, int C, int inner, int n) {
    int id = get_global_id(0);
    if (id >= n)
        return;
    int c = id / inner % C;
    float invStd = inverse_std(var[vo + c], eps);
    float xhat = (x[xo + id] - mean[mo + c]) * invStd;
    dx[dxo + id] = gamma[go + c] * invStd * (dy[dyo + id] - sumDy[s1o + c] / count - xhat * (sumDyXhat[s2o + c] / count));
}
