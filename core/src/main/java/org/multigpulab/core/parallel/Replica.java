package org.multigpulab.core.parallel;

import java.util.ArrayList;
import java.util.List;
import org.multigpulab.core.autograd.Tensor;
import org.multigpulab.core.autograd.Workspace;
import org.multigpulab.core.model.HostTensor;
import org.multigpulab.device.Buffer;
import org.multigpulab.device.Device;

/**
 * One device's copy of the model: its parameters (with gradients once a backward pass ran) and the workspace
 * its training steps reuse. Closing it frees all of that device memory. Not thread-safe.
 */
public final class Replica implements AutoCloseable {

    private final Device device;
    private final List<String> names;
    private final List<Tensor> params;
    private final Workspace workspace;
    private final Buffer gradients;

    private Replica(Device device, List<String> names, List<Tensor> params, Buffer gradients) {
        this.device = device;
        this.names = names;
        this.params = params;
        this.gradients = gradients;
        this.workspace = new Workspace(device);
    }

    /**
     * The notebook's {@code get_params(params, device)}: a copy of {@code params} on {@code device}, gradients enabled.
     * The gradients share one buffer, last parameter first (the order a backward pass produces them), so that
     * gradients which become ready together lie side by side and can be sent as one bucket.
     */
    public static Replica getParams(List<HostTensor> params, Device device) {
        int total = params.stream().mapToInt(p -> p.values().length).sum();
        int[] offsets = new int[params.size()];
        for (int i = params.size() - 1, offset = 0; i >= 0; i--) {
            offsets[i] = offset;
            offset += params.get(i).values().length;
        }
        Buffer gradients = device.allocate(total);
        List<String> names = new ArrayList<>();
        List<Tensor> tensors = new ArrayList<>();
        for (int i = 0; i < params.size(); i++) {
            HostTensor p = params.get(i);
            names.add(p.name());
            tensors.add(Tensor.parameter(
                    device.upload(p.values()), gradients.slice(offsets[i], p.values().length), p.shape()));
        }
        return new Replica(device, List.copyOf(names), List.copyOf(tensors), gradients);
    }

    /** All gradients in one buffer, last parameter first; valid once a backward pass has run. */
    public Buffer gradients() {
        return gradients;
    }

    public Device device() {
        return device;
    }

    public List<Tensor> params() {
        return params;
    }

    public List<String> names() {
        return names;
    }

    public Workspace workspace() {
        return workspace;
    }

    /** The parameter called {@code name} ({@code "b1"}). */
    public Tensor param(String name) {
        int i = names.indexOf(name);
        if (i < 0) {
            throw new IllegalArgumentException("no parameter " + name + "; the model has " + names);
        }
        return params.get(i);
    }

    /** The current parameter values, copied to the host. */
    public List<HostTensor> download() {
        List<HostTensor> out = new ArrayList<>();
        for (int i = 0; i < params.size(); i++) {
            Tensor t = params.get(i);
            float[] values = new float[t.size()];
            device.download(t.data(), values, 0);
            out.add(new HostTensor(names.get(i), t.shape(), values));
        }
        return List.copyOf(out);
    }

    @Override
    public void close() {
        for (Tensor t : params) {
            t.data().close();
        }
        gradients.close();
        workspace.close();
    }
}
