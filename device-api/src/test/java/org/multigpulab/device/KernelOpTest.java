package org.multigpulab.device;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The descriptions in {@link KernelOp} agree with {@link Kernels} and with themselves: a record and a constant per
 * method, the record's buffers in the order of the constant's arguments, the {@link KernelOp.Wrapper} handing on
 * exactly its arguments, {@link KernelOp.Call#launch} making exactly the same call; and the gate's messages.
 */
class KernelOpTest {

    private static final Device HERE = device("sim:0"), THERE = device("sim:1");

    /** The ops' methods: all but {@link Kernels#launchStreams}, abstract or with a default made of other ops. */
    private static List<Method> methods() {
        return Arrays.stream(Kernels.class.getDeclaredMethods())
                .filter(m ->
                        !Modifier.isStatic(m.getModifiers()) && !m.getName().equals("launchStreams"))
                .toList();
    }

    private static Class<?> recordOf(Method method) {
        String name = Character.toUpperCase(method.getName().charAt(0))
                + method.getName().substring(1);
        return Arrays.stream(KernelOp.Call.class.getPermittedSubclasses())
                .filter(c -> c.getSimpleName().equals(name))
                .findFirst()
                .orElseThrow(() -> new AssertionError(
                        "KernelOp has no record " + name + " for " + method.getName() + ": add one beside the others"));
    }

    /** Sample arguments for a method: distinct buffers, small valid shapes, a nonzero beta. */
    private static Object[] samples(Class<?>[] types) {
        Object[] args = new Object[types.length];
        for (int i = 0; i < types.length; i++) {
            args[i] = switch (types[i].getName()) {
                case "org.multigpulab.device.Buffer" -> buffer(HERE, 1000 + i);
                case "org.multigpulab.device.ConvShape" -> new ConvShape(2, 3, 6, 5, 4, 3, 2);
                case "org.multigpulab.device.BiasShape" -> new BiasShape(2, 3, 4);
                case "org.multigpulab.device.PoolShape" -> new PoolShape(6, 6, 5, 2, 2);
                case "org.multigpulab.device.ConvPoolShape" ->
                    new ConvPoolShape(new ConvShape(2, 3, 6, 5, 4, 3, 2), 2, 2);
                case "int" -> 3 + i;
                case "float" -> 0.5f + i;
                case "boolean" -> i % 2 == 0;
                default -> throw new AssertionError("no sample of " + types[i]);
            };
        }
        return args;
    }

    private static KernelOp.Call call(Method method, Object[] args) throws ReflectiveOperationException {
        return (KernelOp.Call) recordOf(method)
                .getDeclaredConstructor(method.getParameterTypes())
                .newInstance(args);
    }

    @Test
    void everyMethodHasARecordOfItsArgumentsAndAConstantOfItsOwn() throws ReflectiveOperationException {
        Set<KernelOp> described = EnumSet.noneOf(KernelOp.class);
        for (Method method : methods()) {
            Class<?> record = recordOf(method);
            assertEquals(
                    List.of(method.getParameterTypes()),
                    Arrays.stream(record.getRecordComponents())
                            .map(RecordComponent::getType)
                            .toList(),
                    record.getSimpleName() + " holds the method's arguments");
            assertTrue(
                    described.add(
                            call(method, samples(method.getParameterTypes())).op()),
                    record.getSimpleName() + " names a constant of its own");
        }
        assertEquals(EnumSet.allOf(KernelOp.class), described);
        assertEquals(methods().size(), KernelOp.Call.class.getPermittedSubclasses().length);
    }

    @Test
    void aCallsBuffersAreItsOpsArgumentsInOrder() throws ReflectiveOperationException {
        for (Method method : methods()) {
            KernelOp.Call call = call(method, samples(method.getParameterTypes()));
            List<String> roles =
                    call.op().args().stream().map(KernelOp.Arg::role).toList();
            List<RecordComponent> buffers = Arrays.stream(call.getClass().getRecordComponents())
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
    void theWrapperHandsOnItsArgumentsAndLaunchMakesTheSameCall() throws ReflectiveOperationException {
        List<KernelOp.Call> seen = new ArrayList<>();
        KernelOp.Wrapper wrapper = new KernelOp.Wrapper() {
            @Override
            protected void call(KernelOp.Call call) {
                seen.add(call);
            }
        };
        Map<Buffer, Buffer> elsewhere = new HashMap<>();
        for (Method method : methods()) {
            Object[] args = samples(method.getParameterTypes());
            seen.clear();
            try {
                method.invoke(wrapper, args);
            } catch (InvocationTargetException e) {
                throw new AssertionError(method.getName(), e.getCause());
            }
            assertEquals(List.of(call(method, args)), seen, method.getName());

            Object[] mapped = Arrays.stream(args)
                    .map(a -> a instanceof Buffer b ? elsewhere.computeIfAbsent(b, x -> buffer(THERE, b.length())) : a)
                    .toArray();
            List<Object> made = new ArrayList<>();
            Kernels recorder = (Kernels) Proxy.newProxyInstance(
                    Kernels.class.getClassLoader(), new Class<?>[] {Kernels.class}, (proxy, m, a) -> {
                        made.add(m.getName());
                        made.addAll(Arrays.asList(a));
                        return null;
                    });
            seen.getFirst().launch(recorder, elsewhere::get);
            List<Object> expected = new ArrayList<>(List.of(method.getName()));
            expected.addAll(Arrays.asList(mapped));
            assertEquals(expected, made, method.getName() + " launched with the buffers mapped");
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
        assertEquals("softmax_xent_forward", KernelOp.SOFTMAX_XENT_FORWARD.kernelName());
        assertEquals(
                KernelOp.values().length,
                Arrays.stream(KernelOp.values())
                        .map(KernelOp::kernelName)
                        .collect(Collectors.toSet())
                        .size());
    }

    @Test
    void theGateExplainsWhatIsWrongAndWhatToDo() {
        List<String> counted = new ArrayList<>();
        Kernels gate = new InstrumentedKernels(
                HERE,
                new KernelOp.Wrapper() {
                    @Override
                    protected void call(KernelOp.Call call) {}
                },
                (call, nanos) -> counted.add(call.op().kernelName() + " " + call.flops()));
        Buffer mine = buffer(HERE, 8), theirs = buffer(THERE, 8), short3 = buffer(HERE, 3);

        assertEquals(
                "relu_forward on sim:0 was given y that lives on sim:1; copy it to sim:0 first",
                assertThrows(DeviceException.class, () -> gate.reluForward(mine, theirs, 8))
                        .getMessage());
        assertEquals(
                "axpy on sim:0: y holds 3 floats but the shape needs 8",
                assertThrows(DeviceException.class, () -> gate.axpy(1f, mine, short3, 8))
                        .getMessage());
        assertEquals(
                "scale: element count must not be negative, got -1",
                assertThrows(DeviceException.class, () -> gate.scale(1f, mine, -1))
                        .getMessage());
        assertEquals(
                "gemm: m, n and k must be positive, got 0, 2, 2",
                assertThrows(DeviceException.class, () -> gate.gemm(false, false, 0, 2, 2, 1f, mine, mine, 0f, mine))
                        .getMessage());
        assertTrue(counted.isEmpty(), "a refused call is not counted: " + counted);
        gate.add(mine, mine, mine, 8);
        assertEquals(List.of("add 8"), counted);
    }

    @Test
    void theGateChecksEveryStreamBeforeAnyRunsAndTellsBothObservers() {
        List<String> ran = new ArrayList<>(), counted = new ArrayList<>(), toldStream = new ArrayList<>();
        Kernels gate = new InstrumentedKernels(
                HERE,
                new KernelOp.Wrapper() {
                    @Override
                    protected void call(KernelOp.Call call) {
                        ran.add(call.op().kernelName());
                    }
                },
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
