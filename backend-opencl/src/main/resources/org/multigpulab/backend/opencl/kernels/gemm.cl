// c[M,N] = alpha * op(a) * op(b) + beta * c, row-major; op(a) is a[M,K] or, transposed, a[K,M]^T,
// op(b) is b[K,N] or b[N,K]^T. One work-item per element of c. With beta == 0, c is not read.
__kernel void gemm(int transA, int transB, int M, int N, int K, float alpha,
                   __global const float* a, int ao, __global const float* b, int bo,
                   float beta, __global float* c, int co) {
    int id = get_global_id(0);
    int i = id / N, j = id % N;
    float sum = 0.0f;
    for (int p = 0; p < K; p++)
        sum += (transA ? a[ao + p * M + i] : a[ao + i * K + p]) * (transB ? b[bo + j * K + p] : b[bo + p * N + j]);
    c[co + id] = alpha * sum + (beta == 0.0f ? 0.0f : beta * c[co + id]);
}
