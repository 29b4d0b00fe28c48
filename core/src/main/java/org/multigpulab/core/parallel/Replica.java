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
    private final Buffer bufferValues;

    private Replica(
            Device device,
            List<String> names,
            List<Tensor> params,
            int[] offsets,
            Buffer values,
            Buffer gradients,
            List<HostTensor> bufferSpecs,
            List<Tensor> buffers,
            Buffer bufferValues) {
        this.device = device;
        this.names = names;
        this.params = params;
        this.offsets = offsets;
        this.values = values;
        this.gradients = gradients;
        this.bufferSpecs = bufferSpecs;
        this.buffers = buffers;
        this.bufferValues = bufferValues;
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
        return getState(params, buffers, device, ZeroStage.NONE);
    }

    /**
     * {@link #getState} for a device of a run at ZeRO stage {@code stage}: without the buffer of all gradients in
     * stages 2 and 3, and without that of all parameters in stage 3, whose parameter tensors then have no data until
     * the run gives them some; the device never holds what its stage shards.
     */
    public static Replica getState(List<HostTensor> params, List<HostTensor> buffers, Device device, ZeroStage stage) {
        int total = params.stream().mapToInt(p -> p.values().length).sum();
        int[] offsets = new int[params.size()];
        for (int i = params.size() - 1, offset = 0; i >= 0; i--) {
            offsets[i] = offset;
            offset += params.get(i).values().length;
        }
        Buffer values = stage.shardsParameters() ? null : device.allocate(total);
        Buffer gradients = stage.shardsGradients() ? null : device.allocate(total);
        List<String> names = new ArrayList<>();
        List<Tensor> tensors = new ArrayList<>();
        for (int i = 0; i < params.size(); i++) {
            HostTensor p = params.get(i);
            names.add(p.name());
            if (values == null) {
                tensors.add(Tensor.parameter(device, p.shape()));
                continue;
            }
            Buffer data = values.slice(offsets[i], p.size());
            device.upload(p.values(), 0, data);
            tensors.add(
                    gradients == null
                            ? parameterWithoutGradient(data, p.shape())
                            : Tensor.parameter(data, gradients.slice(offsets[i], p.size()), p.shape()));
        }
        // the buffers lie one after another in the model's order, so that DDP's broadcast of them is one copy
        int bufferTotal = buffers.stream().mapToInt(b -> b.values().length).sum();
        Buffer bufferValues = bufferTotal == 0 ? null : device.allocate(bufferTotal);
        List<Tensor> bufferTensors = new ArrayList<>();
        for (int i = 0, offset = 0; i < buffers.size(); offset += buffers.get(i).values().length, i++) {
            HostTensor b = buffers.get(i);
            Buffer data = bufferValues.slice(offset, b.values().length);
            device.upload(b.values(), 0, data);
            bufferTensors.add(Tensor.of(data, false, b.shape()));
        }
        return new Replica(
                device,
                List.copyOf(names),
                List.copyOf(tensors),
                offsets,
                values,
                gradients,
                List.copyOf(buffers),
                List.copyOf(bufferTensors),
                bufferValues);
    }

    /** A parameter over {@code data} whose gradient storage the run gives it when a pass needs it. */
    private static Tensor parameterWithoutGradient(Buffer data, int[] shape) {
        Tensor t = Tensor.parameter(data.device(), shape);
        t.bindData(data);
        return t;
    }

    /** Where parameter {@code p} lies in {@link #values()} and {@link #gradients()}. */
    public int offset(int p) {
        return offsets[p];
    }

    /** How many parameter values the model has: the length of {@link #values()} and {@link #gradients()}. */
    public int length() {
        return params.stream().mapToInt(Tensor::size).sum();
    }

    /** All parameters in one buffer, last parameter first; null at ZeRO stage 3, which shards them. */
    public Buffer values() {
        return values;
    }

    /**
     * All gradients in one buffer, last parameter first; valid once a backward pass has run; null at ZeRO stages 2
     * and 3, which shard them.
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

    /** All buffers in one allocation, in the model's order; null for a model without buffers. */
    public Buffer bufferValues() {
        return bufferValues;
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
        if (bufferValues != null) {
            bufferValues.close();
        }
        workspace.close();
    }
}
