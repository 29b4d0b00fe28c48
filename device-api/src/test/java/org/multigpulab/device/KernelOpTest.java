package org.multigpulab.device;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.multigpulab.device.KernelOp.Add;
import org.multigpulab.device.KernelOp.Axpy;
import org.multigpulab.device.KernelOp.Gemm;
import org.multigpulab.device.KernelOp.ReluForward;
import org.multigpulab.device.KernelOp.Scale;

/**
 * The descriptions in {@link KernelOp} agree with the records they are read from: every op a public record with each
 * buffer marked, the description's arguments its buffers in order, {@link KernelOp.Call#withBuffers} the same call
 * with only its buffers replaced; and the gate's messages.
 */
class KernelOpTest {

    private static final Device HERE = device("sim:0"), THERE = device("sim:1");

    /** Sample arguments for a record's components: distinct buffers, small valid shapes, a nonzero beta. */
    private static Object[] samples(Class<?> record) {
        RecordComponent[] components = record.getRecordComponents();
        Object[] args = new Object[components.length];
        for (int i = 0; i < args.length; i++) {
            args[i] = switch (components[i].getType().getName()) {
                case "org.multigpulab.device.Buffer" -> buffer(HERE, 1000 + i);
                case "org.multigpulab.device.ConvShape" -> new ConvShape(2, 3, 6, 5, 4, 3, 2);
                case "org.multigpulab.device.BiasShape" -> new BiasShape(2, 3, 4);
                case "org.multigpulab.device.PoolShape" -> new PoolShape(6, 6, 5, 2, 2);
                case "org.multigpulab.device.ConvPoolShape" ->
                    new ConvPoolShape(new ConvShape(2, 3, 6, 5, 4, 3, 2), 2, 2);
                case "int" -> 3 + i;
                case "long" -> 3L + i;
                case "float" -> 0.5f + i;
                case "boolean" -> i % 2 == 0;
                default -> throw new AssertionError("no sample of " + components[i]);
            };
        }
        return args;
    }

    private static KernelOp.Call call(Class<?> record, Object[] args) throws ReflectiveOperationException {
        Class<?>[] types = Arrays.stream(record.getRecordComponents())
                .map(RecordComponent::getType)
                .toArray(Class<?>[]::new);
        return (KernelOp.Call) record.getDeclaredConstructor(types).newInstance(args);
    }

    /** The records that implement {@link KernelOp.Call}, found through the sealed interfaces. */
    private static List<Class<?>> records(Class<?> sealed) {
        List<Class<?>> found = new ArrayList<>();
        for (Class<?> c : sealed.getPermittedSubclasses()) {
            if (c.isRecord()) {
                found.add(c);
            } else {
                found.addAll(records(c));
            }
        }
        return found;
    }

    @Test
    void everyOpIsAPublicRecordDescribedOnceWithItsBuffersMarked() {
        List<Class<?>> records = records(KernelOp.Call.class);
        assertEquals(records, KernelOp.all().stream().map(KernelOp::type).toList());
        for (Class<?> record : records) {
            assertTrue(Modifier.isPublic(record.getModifiers()), record + " is public");
            for (RecordComponent c : record.getRecordComponents()) {
                long marks = Stream.of(KernelOp.Reads.class, KernelOp.Writes.class, KernelOp.Updates.class)
                        .filter(c::isAnnotationPresent)
                        .count();
                assertEquals(
                        c.getType() == Buffer.class ? 1 : 0,
                        marks,
                        record.getSimpleName() + "." + c.getName() + ": a buffer has one mark, nothing else has one");
            }
        }
        assertEquals(
                KernelOp.all().size(),
                KernelOp.all().stream()
                        .map(KernelOp::kernelName)
                        .collect(Collectors.toSet())
                        .size(),
                "kernel names are distinct");
        assertEquals(
                "softmax_cross_entropy_forward",
                KernelOp.of(KernelOp.SoftmaxCrossEntropyForward.class).kernelName());
        assertEquals(
                "conv2d_bias_relu_avg_pool_backward",
                KernelOp.of(KernelOp.Conv2dBiasReluAvgPoolBackward.class).kernelName());
        assertEquals(
                List.of(new KernelOp.Arg("y", true, true), new KernelOp.Arg("b", true, false)),
                KernelOp.of(KernelOp.BiasAdd.class).args());
    }

    @Test
    void aCallsBuffersAreItsOpsArgumentsInOrder() throws ReflectiveOperationException {
        for (Class<?> record : records(KernelOp.Call.class)) {
            KernelOp.Call call = call(record, samples(record));
            List<String> roles =
                    call.op().args().stream().map(KernelOp.Arg::role).toList();
            List<RecordComponent> buffers = Arrays.stream(record.getRecordComponents())
                    .filter(c -> c.getType() == Buffer.class)
                    .toList();
            assertEquals(
                    buffers.stream().map(RecordComponent::getName).toList(),
                    roles,
                    call.op().kernelName());
            for (int i = 0; i < roles.size(); i++) {
                assertSame(buffers.get(i).getAccessor().invoke(call), call.buffer(i), call.op() + " buffer " + i);
                assertTrue(call.needed(i) > 0, call.op() + " needs elements of buffer " + i);
                assertTrue(call.reads(i) || call.writes(i), call.op() + " uses buffer " + i);
            }
        }
    }

    @Test
    void withBuffersReplacesTheBuffersAndKeepsEverythingElse() throws ReflectiveOperationException {
        Map<Buffer, Buffer> elsewhere = new HashMap<>();
        for (Class<?> record : records(KernelOp.Call.class)) {
            Object[] args = samples(record);
            Object[] mapped = Arrays.stream(args)
                    .map(a -> a instanceof Buffer b ? elsewhere.computeIfAbsent(b, x -> buffer(THERE, b.length())) : a)
                    .toArray();
            assertEquals(call(record, mapped), call(record, args).withBuffers(elsewhere::get), record.getSimpleName());
        }
    }

    @Test
    void aFusedOpsFlopsAreThoseOfTheOpsItStandsFor() throws ReflectiveOperationException {
        for (Class<?> record : records(KernelOp.Fused.class)) {
            KernelOp.Fused fused = (KernelOp.Fused) call(record, samples(record));
            List<KernelOp.Call> parts = fused.unfused();
            assertTrue(parts.size() > 1, record.getSimpleName() + " stands for several ops");
            assertTrue(parts.stream().noneMatch(p -> p instanceof KernelOp.Fused), record.getSimpleName());
            assertEquals(parts.stream().mapToLong(KernelOp.Call::flops).sum(), fused.flops(), record.getSimpleName());
        }
    }

    @Test
    void costsComeFromTheShapes() {
        Buffer a = buffer(HERE, 100), b = buffer(HERE, 100), c = buffer(HERE, 100);
        KernelOp.Call gemm = new KernelOp.Gemm(false, true, 4, 5, 6, 1f, a, b, 0f, c);
        assertEquals(2L * 4 * 5 * 6, gemm.flops());
        assertEquals(Float.BYTES * (4 * 6 + 6 * 5 + 4 * 5L), gemm.bytes(), "beta 0: c is written, not read");
        assertFalse(gemm.reads(2));
        assertEquals(
                Float.BYTES * (4 * 6 + 6 * 5 + 2 * 4 * 5L),
                new KernelOp.Gemm(false, true, 4, 5, 6, 1f, a, b, 1f, c).bytes(),
                "beta 1: c is read and written");
        BiasShape s = new BiasShape(2, 3, 4);
        assertEquals(
                Float.BYTES * (2L * s.length() + s.channels()),
                new KernelOp.BiasAdd(a, b, s).bytes(),
                "y += b reads and writes y");
        assertEquals(Float.BYTES * 3L * 7, new KernelOp.Axpy(2f, a, b, 7).bytes());
        assertEquals(0, new KernelOp.Fill(0f, a, 7).flops());
        assertEquals(Float.BYTES * (3L * 10 + 3 + 1), new KernelOp.ArgmaxMatches(a, b, c, 3, 10).bytes());
    }

    @Test
    void theGateExplainsWhatIsWrongAndWhatToDo() {
        List<String> counted = new ArrayList<>();
        Kernels gate = new InstrumentedKernels(
                HERE, call -> {}, (call, nanos) -> counted.add(call.op().kernelName() + " " + call.flops()));
        Buffer mine = buffer(HERE, 8), theirs = buffer(THERE, 8), short3 = buffer(HERE, 3);

        assertEquals(
                "relu_forward on sim:0 was given y that lives on sim:1; copy it to sim:0 first",
                assertThrows(DeviceException.class, () -> gate.launch(new ReluForward(mine, theirs, 8)))
                        .getMessage());
        assertEquals(
                "axpy on sim:0: y holds 3 floats but the shape needs 8",
                assertThrows(DeviceException.class, () -> gate.launch(new Axpy(1f, mine, short3, 8)))
                        .getMessage());
        assertEquals(
                "scale: element count must not be negative, got -1",
                assertThrows(DeviceException.class, () -> gate.launch(new Scale(1f, mine, -1)))
                        .getMessage());
        assertEquals(
                "gemm: m, n and k must be positive, got 0, 2, 2",
                assertThrows(
                                DeviceException.class,
                                () -> gate.launch(new Gemm(false, false, 0, 2, 2, 1f, mine, mine, 0f, mine)))
                        .getMessage());
        assertTrue(counted.isEmpty(), "a refused call is not counted: " + counted);
        gate.launch(new Add(mine, mine, mine, 8));
        assertEquals(List.of("add 8"), counted);
    }

    @Test
    void theGateChecksEveryStreamBeforeAnyRunsAndTellsBothObservers() {
        List<String> ran = new ArrayList<>(), counted = new ArrayList<>(), toldStream = new ArrayList<>();
        Kernels gate = new InstrumentedKernels(
                HERE,
                call -> ran.add(call.op().kernelName()),
                (call, nanos) -> counted.add(call.op().kernelName()));
        Buffer mine = buffer(HERE, 8), theirs = buffer(THERE, 8);
        KernelObserver stream = (call, nanos) -> toldStream.add(call.op().kernelName());
        KernelStream good = new KernelStream(
                List.of(new KernelOp.Fill(1f, mine, 8), new KernelOp.Scale(2f, mine, 8)), b -> b, stream);
        KernelStream bad = new KernelStream(List.of(new KernelOp.ReluForward(mine, theirs, 8)), b -> b, stream);

        DeviceException e = assertThrows(DeviceException.class, () -> gate.launchStreams(List.of(good, bad)));
        assertEquals("relu_forward on sim:0 was given y that lives on sim:1; copy it to sim:0 first", e.getMessage());
        assertTrue(ran.isEmpty() && counted.isEmpty(), "nothing ran before the bad stream was found: " + ran);

        KernelStream mapped = new KernelStream(List.of(new KernelOp.Fill(0f, theirs, 8)), b -> mine, stream);
        gate.launchStreams(List.of(good, mapped));
        assertEquals(List.of("fill", "scale", "fill"), ran, "each stream in its order, buffers mapped first");
        assertEquals(ran, counted);
        assertEquals(ran, toldStream);
    }

    private static Device device(String id) {
        DeviceId parsed = DeviceId.parse(id);
        return (Device) Proxy.newProxyInstance(
                Device.class.getClassLoader(), new Class<?>[] {Device.class}, (proxy, m, a) -> switch (m.getName()) {
                    case "id" -> parsed;
                    case "toString" -> id;
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == a[0];
                    default -> throw new UnsupportedOperationException(m.getName());
                });
    }

    private static Buffer buffer(Device device, int length) {
        return new BufferBase(device, length, false) {
            @Override
            protected Buffer view(int offset, int count) {
                return buffer(device, count);
            }

            @Override
            protected void free() {}
        };
    }
}
