package org.multigpulab.backend.djl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.multigpulab.backend.djl.WrongConvolutions.Pass;
import org.multigpulab.device.Backends;
import org.multigpulab.device.ConvShape;
import org.multigpulab.device.Device;
import org.multigpulab.device.DeviceException;
import org.multigpulab.device.DeviceRequest;

/**
 * The self-test and the gate on convolutions made wrong on purpose ({@link WrongConvolutions} over the pure-Java
 * {@code cpu} backend, with a {@link FakeLibrary} for oneDNN): nothing here depends on the processor or on libtorch.
 */
class ConvolutionGateTest {

    /** A way to be wrong and the words the self-test must find for it. */
    record Wrong(String name, Pass pass, float factor, Predicate<ConvShape> shapes, String says, String how) {

        /** {@code real}, wrong this way whenever {@code active} says so. */
        Device on(Device real, BooleanSupplier active) {
            return WrongConvolutions.of(real, pass, factor, s -> active.getAsBoolean() && shapes.test(s));
        }

        @Override
        public String toString() {
            return name;
        }
    }

    private static final Wrong DATA_OFF = new Wrong(
            "data gradient 1 % off",
            Pass.BACKWARD_DATA,
            1.01f,
            s -> true,
            "(backward to the data, 1→20 channels, 3×3 on 28×28)",
            "off by 0.010 of the largest value");

    static Stream<Wrong> wrongs() {
        return Stream.of(
                DATA_OFF,
                new Wrong(
                        "forward NaN",
                        Pass.FORWARD,
                        Float.NaN,
                        s -> true,
                        "(forward, 1→20 channels, 3×3 on 28×28)",
                        "gives NaN"),
                new Wrong(
                        "conv2's filter gradient 1 % off",
                        Pass.BACKWARD_FILTER,
                        1.01f,
                        s -> s.inChannels() == 20,
                        "(backward to the filter, 20→50 channels, 5×5 on 13×13)",
                        "off by 0.010 of the largest value"),
                new Wrong(
                        "strided, padded data gradient 1 % off",
                        Pass.BACKWARD_DATA,
                        1.01f,
                        s -> s.stride() != 1 && s.padding() != 0,
                        "(backward to the data, 16→32 channels, 3×3 stride 2 padding 1 on 15×15)",
                        "off by 0.010 of the largest value"),
                new Wrong(
                        "1×1 shortcut's forward NaN",
                        Pass.FORWARD,
                        Float.NaN,
                        s -> s.kernelHeight() == 1,
                        "(forward, 16→32 channels, 1×1 stride 2 padding 0 on 15×15)",
                        "gives NaN"));
    }

    private final FakeLibrary library = new FakeLibrary();
    private final ConvolutionGate gate = new ConvolutionGate();
    private final Device cpu = Backends.open("cpu", DeviceRequest.of(1)).getFirst();

    @AfterEach
    void close() {
        cpu.close();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("wrongs")
    void theSelfTestSaysWhichPassOfWhichShapeIsWrongAndHow(Wrong w) {
        String failure =
                ConvolutionSelfTest.failure(w.on(cpu, library::enabled)).orElseThrow();
        assertTrue(failure.contains(w.says()) && failure.contains(w.how()), failure);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("wrongs")
    void theGateTurnsOffALibraryThatMakesConvolutionsWrong(Wrong w) {
        Device device = w.on(cpu, library::enabled);
        String note = gate.admit(device, library).orElseThrow();
        assertFalse(library.enabled());
        assertTrue(note.startsWith("cpu:0 runs without fake oneDNN: with it, ") && note.contains(w.says()), note);
        assertEquals(Optional.empty(), ConvolutionSelfTest.failure(device), "right without the library");
    }

    @Test
    void aDeviceWrongWithAndWithoutTheLibraryIsRefusedWithWhatToDo() {
        Device device = DATA_OFF.on(cpu, () -> true);
        DeviceException e = assertThrows(DeviceException.class, () -> gate.admit(device, library));
        assertFalse(library.enabled(), "the gate tried without the library first");
        assertRefusal(e);
    }

    @Test
    void aWrongDeviceWithNoLibraryToTurnOffIsRefused() {
        Device device = DATA_OFF.on(cpu, () -> true);
        assertRefusal(assertThrows(DeviceException.class, () -> gate.admit(device, ConvolutionLibrary.NONE)));
    }

    private static void assertRefusal(DeviceException e) {
        assertTrue(
                e.getMessage().startsWith("cpu:0 refuses to train: ")
                        && e.getMessage().contains(DATA_OFF.says())
                        && e.getMessage().contains("--backend sim --physical cpu"),
                e.getMessage());
    }

    @Test
    void anAdmittedDeviceIsTestedAgainOnlyWhenItsLibraryChanged() {
        AtomicInteger forwardPasses = new AtomicInteger();
        // right convolutions that count their forward passes
        Device device = WrongConvolutions.of(cpu, Pass.FORWARD, 1f, s -> {
            forwardPasses.incrementAndGet();
            return false;
        });
        assertEquals(Optional.empty(), gate.admit(device, library));
        int oneTest = forwardPasses.get();
        assertTrue(oneTest > 0, "the first admission tests the convolutions");
        assertEquals(Optional.empty(), gate.admit(device, library));
        assertEquals(oneTest, forwardPasses.get(), "admitted again without a test");
        library.disable();
        assertEquals(Optional.empty(), gate.admit(device, library));
        assertEquals(2 * oneTest, forwardPasses.get(), "tested again with the library off");
    }

    @Test
    void aDeviceAdmittedWithoutItsLibraryGetsTheSameNoteAgain() {
        Device device = DATA_OFF.on(cpu, library::enabled);
        String note = gate.admit(device, library).orElseThrow();
        assertEquals(Optional.of(note), gate.admit(device, library));
    }

    @Test
    void aRefusedDeviceIsRefusedAgain() {
        Device device = DATA_OFF.on(cpu, () -> true);
        assertThrows(DeviceException.class, () -> gate.admit(device, library));
        assertRefusal(assertThrows(DeviceException.class, () -> gate.admit(device, library)));
    }

    @Test
    void aRightDeviceKeepsItsLibrary() {
        assertEquals(Optional.empty(), gate.admit(cpu, library));
        assertTrue(library.enabled());
    }
}
