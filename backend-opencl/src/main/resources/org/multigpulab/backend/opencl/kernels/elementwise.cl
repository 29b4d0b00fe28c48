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

/* torch.optim.SGD's step (KernelOp.SgdStep): without momentum buf is neither read nor written. */
__kernel void sgd_step(float lr, float momentum, float dampening, int nesterov, float weight_decay, float grad_scale,
                       int first, __global float* p, int po, __global const float* grad, int go,
                       __global float* buf, int bo) {
    int id = get_global_id(0);
    float g = grad_scale * grad[go + id];
    if (weight_decay != 0.0f) g += weight_decay * p[po + id];
    if (momentum != 0.0f) {
        float b = first ? g : momentum * buf[bo + id] + (1.0f - dampening) * g;
        buf[bo + id] = b;
        g = nesterov ? g + momentum * b : b;
    }
    p[po + id] -= lr * g;
}

/* torch.optim.Adam's or AdamW's step (KernelOp.AdamStep), its bias corrections computed on the host. */
__kernel void adam_step(float step_size, float correction_sqrt, float beta1, float beta2, float eps, float weight_decay,
                        float decay, int decoupled, float grad_scale, __global float* p, int po,
                        __global const float* grad, int go, __global float* m, int mo, __global float* v, int vo) {
    int id = get_global_id(0);
    float g = grad_scale * grad[go + id];
    if (decoupled) {
        p[po + id] *= decay;
    } else if (weight_decay != 0.0f) {
        g += weight_decay * p[po + id];
    }
    float mean = m[mo + id] + (1.0f - beta1) * (g - m[mo + id]);
    float var = beta2 * v[vo + id] + (1.0f - beta2) * g * g;
    m[mo + id] = mean;
    v[vo + id] = var;
    p[po + id] -= step_size * mean / (sqrt(var) / correction_sqrt + eps);
}
