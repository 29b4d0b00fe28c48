import org.multigpulab.device.Backends;
import org.multigpulab.device.Device;
import org.multigpulab.device.DeviceRequest;

/**
 * Opens opencl:0 (PoCL builds the kernels), then keeps two threads in compiled loops while the main thread asks
 * for 1,000 garbage collections: at each safepoint the looping threads fault on the JVM's polling page at about
 * the same time. Prints "survived" if the JVM lives through it. Run by scripts/signal-race.sh.
 */
public class SignalRace {

    static volatile long sink;

    public static void main(String[] args) {
        Backends.open("opencl", DeviceRequest.of(1)).forEach(Device::close);
        for (int t = 0; t < 2; t++) {
            Thread spin = new Thread(() -> {
                long s = 0;
                while (true) {
                    for (int i = 0; i < 1_000_000; i++) {
                        s += i ^ (s >>> 3);
                    }
                    sink = s;
                }
            });
            spin.setDaemon(true);
            spin.start();
        }
        for (int i = 0; i < 1_000; i++) {
            System.gc();
        }
        System.out.println("survived");
    }
}
