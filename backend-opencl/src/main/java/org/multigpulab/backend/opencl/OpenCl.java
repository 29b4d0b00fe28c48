package org.multigpulab.backend.opencl;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.util.Arrays;
import java.util.Map;
import java.util.Optional;

/**
 * The part of the OpenCL 1.2 C API this backend uses, bound with {@code java.lang.foreign}: no JNI code and no
 * binding library. Handles ({@code cl_platform_id}, {@code cl_mem}, …) are addresses; {@code size_t} and the
 * {@code cl_bitfield} types are 64-bit on the platforms we run on. Every call that fails throws a
 * {@link OpenClException} naming the function and the error code by its name.
 */
final class OpenCl {

    static final int CL_SUCCESS = 0;
    static final long CL_DEVICE_TYPE_GPU = 1 << 2;
    static final long CL_DEVICE_TYPE_ALL = 0xFFFFFFFFL;
    static final int CL_PLATFORM_NAME = 0x0902;
    static final int CL_DEVICE_TYPE = 0x1000;
    static final int CL_DEVICE_MAX_COMPUTE_UNITS = 0x1002;
    static final int CL_DEVICE_GLOBAL_MEM_SIZE = 0x101F;
    static final int CL_DEVICE_NAME = 0x102B;
    static final int CL_PROGRAM_BUILD_LOG = 0x1183;
    static final long CL_MEM_READ_WRITE = 1;
    static final long CL_QUEUE_PROFILING_ENABLE = 1 << 1;
    static final int CL_PROFILING_COMMAND_START = 0x1282;
    static final int CL_PROFILING_COMMAND_END = 0x1283;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final String LIBRARY = "libOpenCL.so.1";

    /** Why the library could not be loaded, or empty when it was. */
    static final Optional<String> UNAVAILABLE;

    private static final SymbolLookup LOOKUP;

    static {
        SymbolLookup lookup = null;
        String why = null;
        try {
            lookup = SymbolLookup.libraryLookup(LIBRARY, Arena.global());
        } catch (IllegalArgumentException e) {
            why = "the OpenCL library " + LIBRARY + " is not installed (on Debian: apt-get install ocl-icd-libopencl1"
                    + " and a driver, e.g. pocl-opencl-icd for the CPU)";
        }
        LOOKUP = lookup;
        UNAVAILABLE = Optional.ofNullable(why);
    }

    private static MethodHandle fn(String name, MemoryLayout result, MemoryLayout... args) {
        if (LOOKUP == null) {
            return null;
        }
        return LINKER.downcallHandle(LOOKUP.findOrThrow(name), FunctionDescriptor.of(result, args));
    }

    static final MethodHandle clGetPlatformIDs = fn("clGetPlatformIDs", JAVA_INT, JAVA_INT, ADDRESS, ADDRESS);
    static final MethodHandle clGetPlatformInfo =
            fn("clGetPlatformInfo", JAVA_INT, ADDRESS, JAVA_INT, JAVA_LONG, ADDRESS, ADDRESS);
    static final MethodHandle clGetDeviceIDs =
            fn("clGetDeviceIDs", JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT, ADDRESS, ADDRESS);
    static final MethodHandle clGetDeviceInfo =
            fn("clGetDeviceInfo", JAVA_INT, ADDRESS, JAVA_INT, JAVA_LONG, ADDRESS, ADDRESS);
    static final MethodHandle clCreateContext =
            fn("clCreateContext", ADDRESS, ADDRESS, JAVA_INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS);
    static final MethodHandle clCreateCommandQueue =
            fn("clCreateCommandQueue", ADDRESS, ADDRESS, ADDRESS, JAVA_LONG, ADDRESS);
    static final MethodHandle clCreateBuffer =
            fn("clCreateBuffer", ADDRESS, ADDRESS, JAVA_LONG, JAVA_LONG, ADDRESS, ADDRESS);
    static final MethodHandle clEnqueueWriteBuffer = fn(
            "clEnqueueWriteBuffer",
            JAVA_INT,
            ADDRESS,
            ADDRESS,
            JAVA_INT,
            JAVA_LONG,
            JAVA_LONG,
            ADDRESS,
            JAVA_INT,
            ADDRESS,
            ADDRESS);
    static final MethodHandle clEnqueueReadBuffer = fn(
            "clEnqueueReadBuffer",
            JAVA_INT,
            ADDRESS,
            ADDRESS,
            JAVA_INT,
            JAVA_LONG,
            JAVA_LONG,
            ADDRESS,
            JAVA_INT,
            ADDRESS,
            ADDRESS);
    static final MethodHandle clEnqueueCopyBuffer = fn(
            "clEnqueueCopyBuffer",
            JAVA_INT,
            ADDRESS,
            ADDRESS,
            ADDRESS,
            JAVA_LONG,
            JAVA_LONG,
            JAVA_LONG,
            JAVA_INT,
            ADDRESS,
            ADDRESS);
    static final MethodHandle clEnqueueFillBuffer = fn(
            "clEnqueueFillBuffer",
            JAVA_INT,
            ADDRESS,
            ADDRESS,
            ADDRESS,
            JAVA_LONG,
            JAVA_LONG,
            JAVA_LONG,
            JAVA_INT,
            ADDRESS,
            ADDRESS);
    static final MethodHandle clCreateProgramWithSource =
            fn("clCreateProgramWithSource", ADDRESS, ADDRESS, JAVA_INT, ADDRESS, ADDRESS, ADDRESS);
    static final MethodHandle clBuildProgram =
            fn("clBuildProgram", JAVA_INT, ADDRESS, JAVA_INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS);
    static final MethodHandle clGetProgramBuildInfo =
            fn("clGetProgramBuildInfo", JAVA_INT, ADDRESS, ADDRESS, JAVA_INT, JAVA_LONG, ADDRESS, ADDRESS);
    static final MethodHandle clCreateKernel = fn("clCreateKernel", ADDRESS, ADDRESS, ADDRESS, ADDRESS);
    static final MethodHandle clSetKernelArg = fn("clSetKernelArg", JAVA_INT, ADDRESS, JAVA_INT, JAVA_LONG, ADDRESS);
    static final MethodHandle clEnqueueNDRangeKernel = fn(
            "clEnqueueNDRangeKernel",
            JAVA_INT,
            ADDRESS,
            ADDRESS,
            JAVA_INT,
            ADDRESS,
            ADDRESS,
            ADDRESS,
            JAVA_INT,
            ADDRESS,
            ADDRESS);
    static final MethodHandle clFinish = fn("clFinish", JAVA_INT, ADDRESS);
    static final MethodHandle clWaitForEvents = fn("clWaitForEvents", JAVA_INT, JAVA_INT, ADDRESS);
    static final MethodHandle clGetEventProfilingInfo =
            fn("clGetEventProfilingInfo", JAVA_INT, ADDRESS, JAVA_INT, JAVA_LONG, ADDRESS, ADDRESS);
    static final MethodHandle clReleaseEvent = fn("clReleaseEvent", JAVA_INT, ADDRESS);
    static final MethodHandle clReleaseMemObject = fn("clReleaseMemObject", JAVA_INT, ADDRESS);
    static final MethodHandle clReleaseKernel = fn("clReleaseKernel", JAVA_INT, ADDRESS);
    static final MethodHandle clReleaseProgram = fn("clReleaseProgram", JAVA_INT, ADDRESS);
    static final MethodHandle clReleaseCommandQueue = fn("clReleaseCommandQueue", JAVA_INT, ADDRESS);
    static final MethodHandle clReleaseContext = fn("clReleaseContext", JAVA_INT, ADDRESS);

    private OpenCl() {}

    /** Throws unless {@code code} is CL_SUCCESS. */
    static void check(String function, int code) {
        if (code != CL_SUCCESS) {
            throw new OpenClException(function + " failed with " + errorName(code) + " (" + code + ")");
        }
    }

    /** Calls {@code handle} and checks the int it returns. */
    static void call(String function, MethodHandle handle, Object... args) {
        try {
            check(function, (int) handle.invokeWithArguments(args));
        } catch (OpenClException e) {
            throw e;
        } catch (Throwable t) {
            throw new OpenClException(function + " could not be called: " + t, t);
        }
    }

    /** Calls a {@code clCreate…} function whose last argument is the error code, and returns the handle. */
    static MemorySegment create(String function, MethodHandle handle, Arena arena, Object... argsBeforeError) {
        MemorySegment error = arena.allocate(JAVA_INT);
        Object[] args = Arrays.copyOf(argsBeforeError, argsBeforeError.length + 1);
        args[argsBeforeError.length] = error;
        try {
            MemorySegment result = (MemorySegment) handle.invokeWithArguments(args);
            check(function, error.get(JAVA_INT, 0));
            return result;
        } catch (OpenClException e) {
            throw e;
        } catch (Throwable t) {
            throw new OpenClException(function + " could not be called: " + t, t);
        }
    }

    /** Releases an OpenCL object, ignoring a null handle. */
    static void release(MethodHandle handle, MemorySegment object) {
        if (object != null && !object.equals(MemorySegment.NULL)) {
            try {
                int ignored = (int) handle.invokeExact(object);
            } catch (Throwable t) {
                throw new OpenClException("releasing an OpenCL object failed: " + t, t);
            }
        }
    }

    private static final Map<Integer, String> ERRORS = Map.ofEntries(
            Map.entry(-1, "CL_DEVICE_NOT_FOUND"),
            Map.entry(-2, "CL_DEVICE_NOT_AVAILABLE"),
            Map.entry(-3, "CL_COMPILER_NOT_AVAILABLE"),
            Map.entry(-4, "CL_MEM_OBJECT_ALLOCATION_FAILURE"),
            Map.entry(-5, "CL_OUT_OF_RESOURCES"),
            Map.entry(-6, "CL_OUT_OF_HOST_MEMORY"),
            Map.entry(-7, "CL_PROFILING_INFO_NOT_AVAILABLE"),
            Map.entry(-8, "CL_MEM_COPY_OVERLAP"),
            Map.entry(-11, "CL_BUILD_PROGRAM_FAILURE"),
            Map.entry(-12, "CL_MAP_FAILURE"),
            Map.entry(-13, "CL_MISALIGNED_SUB_BUFFER_OFFSET"),
            Map.entry(-30, "CL_INVALID_VALUE"),
            Map.entry(-31, "CL_INVALID_DEVICE_TYPE"),
            Map.entry(-32, "CL_INVALID_PLATFORM"),
            Map.entry(-33, "CL_INVALID_DEVICE"),
            Map.entry(-34, "CL_INVALID_CONTEXT"),
            Map.entry(-35, "CL_INVALID_QUEUE_PROPERTIES"),
            Map.entry(-36, "CL_INVALID_COMMAND_QUEUE"),
            Map.entry(-37, "CL_INVALID_HOST_PTR"),
            Map.entry(-38, "CL_INVALID_MEM_OBJECT"),
            Map.entry(-42, "CL_INVALID_BINARY"),
            Map.entry(-43, "CL_INVALID_BUILD_OPTIONS"),
            Map.entry(-44, "CL_INVALID_PROGRAM"),
            Map.entry(-45, "CL_INVALID_PROGRAM_EXECUTABLE"),
            Map.entry(-46, "CL_INVALID_KERNEL_NAME"),
            Map.entry(-47, "CL_INVALID_KERNEL_DEFINITION"),
            Map.entry(-48, "CL_INVALID_KERNEL"),
            Map.entry(-49, "CL_INVALID_ARG_INDEX"),
            Map.entry(-50, "CL_INVALID_ARG_VALUE"),
            Map.entry(-51, "CL_INVALID_ARG_SIZE"),
            Map.entry(-52, "CL_INVALID_KERNEL_ARGS"),
            Map.entry(-53, "CL_INVALID_WORK_DIMENSION"),
            Map.entry(-54, "CL_INVALID_WORK_GROUP_SIZE"),
            Map.entry(-55, "CL_INVALID_WORK_ITEM_SIZE"),
            Map.entry(-56, "CL_INVALID_GLOBAL_OFFSET"),
            Map.entry(-57, "CL_INVALID_EVENT_WAIT_LIST"),
            Map.entry(-58, "CL_INVALID_EVENT"),
            Map.entry(-59, "CL_INVALID_OPERATION"),
            Map.entry(-61, "CL_INVALID_BUFFER_SIZE"),
            Map.entry(-63, "CL_INVALID_GLOBAL_WORK_SIZE"),
            Map.entry(-1001, "CL_PLATFORM_NOT_FOUND_KHR"));

    static String errorName(int code) {
        return ERRORS.getOrDefault(code, "CL error");
    }
}
