package org.multigpulab.core.parallel;

import java.util.ArrayList;
import java.util.List;
import org.multigpulab.core.autograd.Tensor;
import org.multigpulab.core.autograd.Workspace;
import org.multigpulab.core.model.HostTensor;
import org.multigpulab.device.Buffer;
import org.multigpulab.device.Device;

/**
 * One device's copy of the model: its parameters (with gradients once a backward pass ran), its buffers (state that
 * is not trained, without gradients) and the workspace its training steps reuse. Closing it frees all of that device
 * memory. Not thread-safe.
 */
public final class Replica implements AutoCloseable {

    private final Device device;
    private final List<String> names;
    private final List<Tensor> params;
    private final int[] offsets;
    private final Workspace workspace;
    private Buffer values;
    private Buffer gradients;
    private final List<HostTensor> bufferSpecs;
    private final List<Tensor> buffers;

    private Replica(
            Device device,
            List<String> names,
            List<Tensor> params,
            int[] offsets,
            Buffer values,
            Buffer gradients,
            List<HostTensor> bufferSpecs,
            List<Tensor> buffers) {
        this.device = device;
        this.names = names;
        this.params = params;
        this.offsets = offsets;
        this.values = values;
        this.gradients = gradients;
        this.bufferSpecs = bufferSpecs;
        this.buffers = buffers;
        this.workspace = new Workspace(device);
    }

    /**
     * The notebook's {@code get_params(params, device)}: a copy of {@code params} on {@code device}, gradients enabled.
     * The gradients share one buffer, last parameter first (the order a backward pass produces them), so that
     * gradients which become ready together lie side by side and can be sent as one bucket; the parameters share
     * another laid out alike (PyTorch FSDP's flat parameter), so that a chunk of it is one range to send.
     */
    public static Replica getParams(List<HostTensor> params, Device device) {
        return getState(params, List.of(), device);
    }

    /** {@link #getParams} for a model with buffers: {@code buffers} copied to {@code device} too, without gradients. */
    public static Replica getState(List<HostTensor> params, List<HostTensor> buffers, Device device) {
        int total = params.stream().mapToInt(p -> p.values().length).sum();
        int[] offsets = new int[params.size()];
        for (int i = params.size() - 1, offset = 0; i >= 0; i--) {
            offsets[i] = offset;
            offset += params.get(i).values().length;
        }
        Buffer values = device.allocate(total);
        Buffer gradients = device.allocate(total);
        List<String> names = new ArrayList<>();
        List<Tensor> tensors = new ArrayList<>();
        for (int i = 0; i < params.size(); i++) {
            HostTensor p = params.get(i);
            names.add(p.name());
            Buffer data = values.slice(offsets[i], p.size());
            device.upload(p.values(), 0, data);
            tensors.add(Tensor.parameter(data, gradients.slice(offsets[i], p.size()), p.shape()));
        }
        List<Tensor> bufferTensors = buffers.stream()
                .map(b -> Tensor.of(device.upload(b.values()), false, b.shape()))
                .toList();
        return new Replica(
                device,
                List.copyOf(names),
                List.copyOf(tensors),
                offsets,
                values,
                gradients,
                List.copyOf(buffers),
                bufferTensors);
    }

    /** Where parameter {@code p} lies in {@link #values()} and {@link #gradients()}. */
    public int offset(int p) {
        return offsets[p];
    }

    /** How many parameter values the model has: the length of {@link #values()} and {@link #gradients()}. */
    public int length() {
        return params.stream().mapToInt(Tensor::size).sum();
    }

    /** All parameters in one buffer, last parameter first; null while {@link #releaseValues released}. */
    public Buffer values() {
        return values;
    }

    /**
     * Frees the buffer of all parameters (ZeRO stage 3 keeps only its chunk between passes); the parameters may not
     * be read until {@link #bindValues} gives them another.
     */
    public void releaseValues() {
        values.close();
        values = null;
    }

    /** Points the parameters at {@code all}, a buffer of {@link #length()} laid out as {@link #values()}. */
    public void bindValues(Buffer all) {
        values = all;
        for (int p = 0; p < params.size(); p++) {
            params.get(p).bindData(all.slice(offsets[p], params.get(p).size()));
        }
    }

    /** Frees the buffer of all gradients (ZeRO stages 2 and 3 keep only their chunk between steps). */
    public void releaseGradients() {
        gradients.close();
        gradients = null;
    }

    /** Points the parameters' gradient storage at {@code all}, laid out as {@link #gradients()}; no gradient yet. */
    public void bindGradients(Buffer all) {
        gradients = all;
        for (int p = 0; p < params.size(); p++) {
            params.get(p).bindGradient(all.slice(offsets[p], params.get(p).size()));
        }
    }

    /**
     * All gradients in one buffer, last parameter first; valid once a backward pass has run; null while
     * {@link #releaseGradients released}.
     */
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

    /** The buffers, in the model's order. */
    public List<Tensor> buffers() {
        return buffers;
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
            out.add(new HostTensor(names.get(i), t.shape(), device.download(t.data()), false));
        }
        return List.copyOf(out);
    }

    /** The current buffer values, copied to the host. */
    public List<HostTensor> downloadBuffers() {
        List<HostTensor> out = new ArrayList<>();
        for (int i = 0; i < buffers.size(); i++) {
            HostTensor spec = bufferSpecs.get(i);
            out.add(new HostTensor(
                    spec.name(), spec.shape(), device.download(buffers.get(i).data()), spec.integral()));
        }
        return List.copyOf(out);
    }

    /** The whole state: the parameters, then the buffers, copied to the host. */
    public List<HostTensor> downloadState() {
        List<HostTensor> out = new ArrayList<>(download());
        out.addAll(downloadBuffers());
        return List.copyOf(out);
    }

    @Override
    public void close() {
        if (values != null) {
            values.close();
        }
        if (gradients != null) {
            gradients.close();
        }
        buffers.forEach(b -> b.data().close());
        workspace.close();
    }
}
