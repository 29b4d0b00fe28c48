// c[M,N] = alpha * op(a) * op(b) + beta * c, row-major; op(a) is a[M,K] or, transposed, a[K,M]^T,
// op(b) is b[K,N] or b[N,K]^T. With beta == 0, c is not read.

// term p of c[i,j]'s sum
float gemm_term(int transA, int transB, int M, int N, int K, __global const float* a, int ao,
                __global const float* b, int bo, int i, int j, int p) {
    return (transA ? a[ao + p * M + i] : a[ao + i * K + p]) * (transB ? b[bo + j * K + p] : b[bo + p * N + j]);
}

// one work-item per element of c
__kernel void gemm(int transA, int transB, int M, int N, int K, float alpha,
                   __global const float* a, int ao, __global const float* b, int bo,
                   float beta, __global float* c, int co) {
    int id = get_global_id(0);
    int i = id / N, j = id % N;
    float sum = 0.0f;
    for (int p = 0; p < K; p++)
        sum += gemm_term(transA, transB, M, N, K, a, ao, b, bo, i, j, p);
    c[co + id] = alpha * sum + (beta == 0.0f ? 0.0f : beta * c[co + id]);
}

// the same, a work-group per element of c (reduce.cl): on a GPU, for a c of fewer elements than terms in each, as
// the trainer's squared norms of whole gradients (1 x 1, over up to 102,400 terms)
__kernel __attribute__((reqd_work_group_size(GROUP, 1, 1)))
void gemm_by_groups(int transA, int transB, int M, int N, int K, float alpha,
                    __global const float* a, int ao, __global const float* b, int bo,
                    float beta, __global float* c, int co) {
    __local float partial[GROUP];
    int id = get_group_id(0);
    int i = id / N, j = id % N;
    float sum = 0.0f;
    for (int p = get_local_id(0); p < K; p += GROUP)
        sum += gemm_term(transA, transB, M, N, K, a, ao, b, bo, i, j, p);
    sum = group_sum(partial, sum);
    if (get_local_id(0) == 0)
        c[co + id] = alpha * sum + (beta == 0.0f ? 0.0f : beta * c[co + id]);
}
