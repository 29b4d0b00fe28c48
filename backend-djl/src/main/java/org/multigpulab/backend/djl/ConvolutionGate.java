package org.multigpulab.backend.djl;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.multigpulab.device.Device;
import org.multigpulab.device.DeviceException;
import org.multigpulab.device.DeviceId;

/**
 * Lets a device train only if its convolutions pass the {@link ConvolutionSelfTest}. A device that fails while a
 * {@link ConvolutionLibrary} serves it gets a second chance: the library is turned off and the device tested
 * again, since libtorch's own convolutions are slower but right. A device that fails both ways is refused.
 *
 * <p>A device admitted once is not tested again while its library stays as the gate left it: the same libtorch
 * on the same device computes the same convolutions, and the test costs 0.3–0.5 s on a 2-core Zen 3 (the
 * conformance kit opens a device for each of its 474 cases).
 */
final class ConvolutionGate {

    /** What the gate decided for a device it admitted: the library's state then, and the note it gave. */
    private record Admission(boolean libraryEnabled, Optional<String> note) {}

    private final Map<DeviceId, Admission> admitted = new ConcurrentHashMap<>();

    /**
     * Tests {@code device}, turning {@code library} off if that is what makes its convolutions right; a device
     * admitted before with the library as it is now gets the same answer without a test.
     *
     * @return why the library was turned off, if it was: a note for the student
     * @throws DeviceException if the convolutions are wrong with and without the library; it says what to do
     */
    Optional<String> admit(Device device, ConvolutionLibrary library) {
        Admission before = admitted.get(device.id());
        if (before != null && before.libraryEnabled() == library.enabled()) {
            return before.note();
        }
        Optional<String> note = test(device, library);
        admitted.put(device.id(), new Admission(library.enabled(), note));
        return note;
    }

    private static Optional<String> test(Device device, ConvolutionLibrary library) {
        Optional<String> failure = ConvolutionSelfTest.failure(device);
        if (failure.isEmpty()) {
            return Optional.empty();
        }
        if (library.enabled()) {
            library.disable();
            Optional<String> again = ConvolutionSelfTest.failure(device);
            if (again.isEmpty()) {
                return Optional.of(device.id() + " runs without " + library.name() + ": with it, " + failure.get());
            }
            failure = again;
        }
        throw new DeviceException(device.id() + " refuses to train: " + failure.get() + ". See \"The djl backend\""
                + " in the README; --backend sim --physical cpu trains on our own kernels");
    }
}
