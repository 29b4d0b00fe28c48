package org.multigpulab.backend.opencl;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/** Every OpenCL device of every platform, GPUs first: the order of {@code opencl:0 … opencl:N-1}. */
final class Discovery {

    /** One device: its handles, name, platform, whether it is a GPU, and its memory. */
    record Found(
            MemorySegment platform,
            MemorySegment device,
            String name,
            String platformName,
            boolean gpu,
            long memoryBytes,
            int computeUnits) {}

    private Discovery() {}

    static List<Found> devices() {
        List<Found> found = new ArrayList<>();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment count = arena.allocate(JAVA_INT);
            int code = invokeInt(OpenCl.clGetPlatformIDs, 0, MemorySegment.NULL, count);
            if (code == -1001 || count.get(JAVA_INT, 0) == 0) {
                return List.of(); // the ICD loader found no driver
            }
            OpenCl.check("clGetPlatformIDs", code);
            int platforms = count.get(JAVA_INT, 0);
            MemorySegment ids = arena.allocate(ADDRESS, platforms);
            OpenCl.call("clGetPlatformIDs", OpenCl.clGetPlatformIDs, platforms, ids, MemorySegment.NULL);
            for (int p = 0; p < platforms; p++) {
                MemorySegment platform = ids.getAtIndex(ADDRESS, p);
                String platformName = string(arena, OpenCl.clGetPlatformInfo, platform, OpenCl.CL_PLATFORM_NAME);
                code = invokeInt(
                        OpenCl.clGetDeviceIDs, platform, OpenCl.CL_DEVICE_TYPE_ALL, 0, MemorySegment.NULL, count);
                if (code == -1) {
                    continue; // CL_DEVICE_NOT_FOUND: a platform without devices
                }
                OpenCl.check("clGetDeviceIDs", code);
                int n = count.get(JAVA_INT, 0);
                MemorySegment devices = arena.allocate(ADDRESS, n);
                OpenCl.call(
                        "clGetDeviceIDs",
                        OpenCl.clGetDeviceIDs,
                        platform,
                        OpenCl.CL_DEVICE_TYPE_ALL,
                        n,
                        devices,
                        MemorySegment.NULL);
                for (int d = 0; d < n; d++) {
                    MemorySegment device = devices.getAtIndex(ADDRESS, d);
                    long type = number(arena, device, OpenCl.CL_DEVICE_TYPE, 8);
                    found.add(new Found(
                            platform,
                            device,
                            string(arena, OpenCl.clGetDeviceInfo, device, OpenCl.CL_DEVICE_NAME)
                                    .strip(),
                            platformName,
                            (type & OpenCl.CL_DEVICE_TYPE_GPU) != 0,
                            number(arena, device, OpenCl.CL_DEVICE_GLOBAL_MEM_SIZE, 8),
                            (int) number(arena, device, OpenCl.CL_DEVICE_MAX_COMPUTE_UNITS, 4)));
                }
            }
        }
        found.sort(Comparator.comparing((Found f) -> !f.gpu()));
        return List.copyOf(found);
    }

    private static int invokeInt(MethodHandle handle, Object... args) {
        try {
            return (int) handle.invokeWithArguments(args);
        } catch (Throwable t) {
            throw new OpenClException("an OpenCL query could not be called: " + t, t);
        }
    }

    private static String string(Arena arena, MethodHandle info, MemorySegment object, int param) {
        MemorySegment size = arena.allocate(JAVA_LONG);
        OpenCl.call("clGet*Info", info, object, param, 0L, MemorySegment.NULL, size);
        MemorySegment text = arena.allocate(size.get(JAVA_LONG, 0) + 1);
        OpenCl.call("clGet*Info", info, object, param, size.get(JAVA_LONG, 0), text, MemorySegment.NULL);
        return text.getString(0);
    }

    private static long number(Arena arena, MemorySegment device, int param, int bytes) {
        MemorySegment value = arena.allocate(8);
        OpenCl.call("clGetDeviceInfo", OpenCl.clGetDeviceInfo, device, param, (long) bytes, value, MemorySegment.NULL);
        return bytes == 8 ? value.get(JAVA_LONG, 0) : value.get(JAVA_INT, 0);
    }
}
