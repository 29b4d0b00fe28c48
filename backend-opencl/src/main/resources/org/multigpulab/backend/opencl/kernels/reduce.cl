// Sums over many terms for few outputs: a work-group of GROUP work-items (GROUP comes from the build options) per
// output, each work-item adding every GROUP-th term, then their partial sums added in local memory.

// the sum of every work-item's value in the work-group, returned to each of them
float group_sum(__local float* partial, float value) {
    int lid = get_local_id(0);
    partial[lid] = value;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int width = GROUP / 2; width > 0; width /= 2) {
        if (lid < width)
            partial[lid] += partial[lid + width];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    return partial[0];
}
