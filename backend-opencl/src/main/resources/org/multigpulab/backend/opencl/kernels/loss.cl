// Softmax cross-entropy, one work-item per row of logits [batch, classes]; labels are class indices as floats.

// loss[r] = log(sum_j exp(z_j - max)) - (z_label - max)
__kernel void softmax_cross_entropy_forward(__global const float* logits, int lo, __global const float* labels, int yo,
                                   __global float* loss, int so, int classes) {
    int r = get_global_id(0);
    __global const float* z = logits + lo + r * classes;
    float m = z[0];
    for (int j = 1; j < classes; j++) m = fmax(m, z[j]);
    float sum = 0.0f;
    for (int j = 0; j < classes; j++) sum += exp(z[j] - m);
    loss[so + r] = log(sum) - (z[(int) labels[yo + r]] - m);
}

// d[r,j] = softmax(z)_j - (j == label): the gradient of the summed loss. The label's entry is written as minus
// the other classes' share, since p - 1 for a confident p near 1 cancels to a few float ulps of 1.
__kernel void softmax_cross_entropy_backward(__global const float* logits, int lo, __global const float* labels, int yo,
                                    __global float* d, int dof, int classes) {
    int r = get_global_id(0);
    __global const float* z = logits + lo + r * classes;
    float m = z[0];
    for (int j = 1; j < classes; j++) m = fmax(m, z[j]);
    int label = (int) labels[yo + r];
    float sum = 0.0f, others = 0.0f;
    for (int j = 0; j < classes; j++) {
        float e = exp(z[j] - m);
        sum += e;
        if (j != label) others += e;
    }
    for (int j = 0; j < classes; j++)
        d[dof + r * classes + j] = j == label ? -others / sum : exp(z[j] - m) / sum;
}

// 1 where row r's first maximum sits at its label, else 0
int row_matches(__global const float* logits, int lo, __global const float* labels, int yo, int r, int classes) {
    __global const float* z = logits + lo + r * classes;
    int best = 0;
    for (int j = 1; j < classes; j++) if (z[j] > z[best]) best = j;
    return best == (int) labels[yo + r];
}

// count[0] = rows whose first maximum sits at the label; a single work-item: batches are small
__kernel void argmax_matches(__global const float* logits, int lo, __global const float* labels, int yo,
                             __global float* count, int co, int batch, int classes) {
    int matches = 0;
    for (int r = 0; r < batch; r++)
        matches += row_matches(logits, lo, labels, yo, r, classes);
    count[co] = (float) matches;
}

// the same, one work-group (reduce.cl), a row per work-item
__kernel __attribute__((reqd_work_group_size(GROUP, 1, 1)))
void argmax_matches_by_groups(__global const float* logits, int lo, __global const float* labels, int yo,
                              __global float* count, int co, int batch, int classes) {
    __local float partial[GROUP];
    float matches = 0.0f;   // exact: a count below 2^24
    for (int r = get_local_id(0); r < batch; r += GROUP)
        matches += row_matches(logits, lo, labels, yo, r, classes);
    matches = group_sum(partial, matches);
    if (get_local_id(0) == 0)
        count[co] = matches;
}
