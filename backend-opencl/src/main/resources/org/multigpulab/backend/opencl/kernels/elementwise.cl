// Element-wise kernels, one work-item per element.

__kernel void relu_forward(__global const float* x, int xo, __global float* y, int yo) {
    int id = get_global_id(0);
    float v = x[xo + id];
    y[yo + id] = v <= 0.0f ? 0.0f : v;   // not fmax, which drops a NaN: torch.relu keeps it
}

__kernel void relu_backward(__global const float* x, int xo, __global const float* dy, int dyo,
                            __global float* dx, int dxo) {
    int id = get_global_id(0);
    dx[dxo + id] = x[xo + id] > 0.0f ? dy[dyo + id] : 0.0f;
}

__kernel void axpy(float alpha, __global const float* x, int xo, __global float* y, int yo) {
    int id = get_global_id(0);
    y[yo + id] += alpha * x[xo + id];
}

__kernel void scale(float alpha, __global float* x, int xo) {
    int id = get_global_id(0);
    x[xo + id] *= alpha;
}

__kernel void add(__global const float* a, int ao, __global const float* b, int bo, __global float* out, int oo) {
    int id = get_global_id(0);
    out[oo + id] = a[ao + id] + b[bo + id];
}

__kernel void fill(float value, __global float* x, int xo) {
    x[xo + get_global_id(0)] = value;
}
