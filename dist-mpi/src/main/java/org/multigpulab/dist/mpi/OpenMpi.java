package org.multigpulab.dist.mpi;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.Optional;
import org.multigpulab.core.dist.DistException;

/**
 * The few calls of Open MPI's C API that data parallelism needs, bound with {@code java.lang.foreign}. In Open
 * MPI the predefined handles are the addresses of global objects ({@code MPI_COMM_WORLD} is
 * {@code &ompi_mpi_comm_world}, {@code MPI_FLOAT} {@code &ompi_mpi_float}, {@code MPI_SUM}
 * {@code &ompi_mpi_op_sum}) and {@code MPI_IN_PLACE} is the address 1; MPICH's handles are integers, so its
 * library is recognised and refused by name. Every call's return code is checked and turned into a message.
 */
final class OpenMpi {

    static final String LIBRARY = "libmpi.so.40";
    private static final String MPICH = "libmpi.so.12";
    /** MPI_THREAD_FUNNELED in Open MPI's mpi.h: only the thread that initialised MPI calls it. */
    private static final int THREAD_FUNNELED = 1;

    private static final int RTLD_NOW = 2, RTLD_GLOBAL = 0x100;
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT;
    private static final ValueLayout ADDRESS = ValueLayout.ADDRESS;

    private static final Linker LINKER = Linker.nativeLinker();
    private final SymbolLookup lib;
    final MemorySegment commWorld;
    final MemorySegment floatType;
    final MemorySegment doubleType;
    final MemorySegment sum;
    static final MemorySegment IN_PLACE = MemorySegment.ofAddress(1);

    private final MethodHandle initThread,
            initialized,
            commRank,
            commSize,
            allreduce,
            reduceScatter,
            allGatherv,
            bcast,
            abort,
            finalizeMpi,
            errorString,
            libraryVersion;

    private OpenMpi(SymbolLookup lib) {
        this.lib = lib;
        commWorld = lib.findOrThrow("ompi_mpi_comm_world");
        floatType = lib.findOrThrow("ompi_mpi_float");
        doubleType = lib.findOrThrow("ompi_mpi_double");
        sum = lib.findOrThrow("ompi_mpi_op_sum");
        initThread = handle("MPI_Init_thread", FunctionDescriptor.of(INT, ADDRESS, ADDRESS, INT, ADDRESS));
        initialized = handle("MPI_Initialized", FunctionDescriptor.of(INT, ADDRESS));
        commRank = handle("MPI_Comm_rank", FunctionDescriptor.of(INT, ADDRESS, ADDRESS));
        commSize = handle("MPI_Comm_size", FunctionDescriptor.of(INT, ADDRESS, ADDRESS));
        allreduce =
                handle("MPI_Allreduce", FunctionDescriptor.of(INT, ADDRESS, ADDRESS, INT, ADDRESS, ADDRESS, ADDRESS));
        reduceScatter = handle(
                "MPI_Reduce_scatter", FunctionDescriptor.of(INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS));
        allGatherv = handle(
                "MPI_Allgatherv",
                FunctionDescriptor.of(INT, ADDRESS, INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS));
        bcast = handle("MPI_Bcast", FunctionDescriptor.of(INT, ADDRESS, INT, ADDRESS, INT, ADDRESS));
        abort = handle("MPI_Abort", FunctionDescriptor.of(INT, ADDRESS, INT));
        finalizeMpi = handle("MPI_Finalize", FunctionDescriptor.of(INT));
        errorString = handle("MPI_Error_string", FunctionDescriptor.of(INT, INT, ADDRESS, ADDRESS));
        libraryVersion = handle("MPI_Get_library_version", FunctionDescriptor.of(INT, ADDRESS, ADDRESS));
    }

    private MethodHandle handle(String name, FunctionDescriptor descriptor) {
        return LINKER.downcallHandle(lib.findOrThrow(name), descriptor);
    }

    /**
     * Open MPI's library, loaded with its symbols global (its plug-ins look them up, as they would from a C
     * program), or why it cannot be.
     */
    static OpenMpi load() {
        Optional<String> problem = loadGlobally(LIBRARY);
        if (problem.isPresent()) {
            if (loadGlobally(MPICH).isEmpty()) {
                throw new DistException("found MPICH (" + MPICH + "), but this lab binds Open MPI, whose handles are"
                        + " addresses where MPICH's are integers; install Open MPI (apt-get install openmpi-bin)");
            }
            throw new DistException("no Open MPI library (" + LIBRARY + "): " + problem.get()
                    + "; install it with apt-get install openmpi-bin");
        }
        return new OpenMpi(SymbolLookup.libraryLookup(LIBRARY, Arena.global()));
    }

    private static Optional<String> loadGlobally(String name) {
        try (Arena arena = Arena.ofConfined()) {
            MethodHandle dlopen = LINKER.downcallHandle(
                    LINKER.defaultLookup().findOrThrow("dlopen"), FunctionDescriptor.of(ADDRESS, ADDRESS, INT));
            MethodHandle dlerror = LINKER.downcallHandle(
                    LINKER.defaultLookup().findOrThrow("dlerror"), FunctionDescriptor.of(ADDRESS));
            MemorySegment handle = (MemorySegment) dlopen.invokeExact(arena.allocateFrom(name), RTLD_NOW | RTLD_GLOBAL);
            if (handle.equals(MemorySegment.NULL)) {
                MemorySegment error = (MemorySegment) dlerror.invokeExact();
                return Optional.of(
                        error.equals(MemorySegment.NULL)
                                ? "dlopen failed"
                                : error.reinterpret(4096).getString(0));
            }
            return Optional.empty();
        } catch (Throwable e) {
            return Optional.of(e.toString());
        }
    }

    private void check(String call, int code) {
        if (code != 0) {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment text = arena.allocate(1024);
                MemorySegment length = arena.allocate(INT);
                int ignored = (int) errorString.invokeExact(code, text, length);
                throw new DistException(call + " failed: " + text.getString(0) + " (code " + code + ")");
            } catch (DistException e) {
                throw e;
            } catch (Throwable e) {
                throw new DistException(call + " failed with code " + code);
            }
        }
    }

    private static DistException wrap(String call, Throwable e) {
        return e instanceof DistException m ? m : new DistException(call + ": " + e);
    }

    void initThread() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment flag = arena.allocate(INT);
            check("MPI_Initialized", (int) initialized.invokeExact(flag));
            if (flag.get(INT, 0) != 0) {
                return;
            }
            MemorySegment provided = arena.allocate(INT);
            check("MPI_Init_thread", (int)
                    initThread.invokeExact(MemorySegment.NULL, MemorySegment.NULL, THREAD_FUNNELED, provided));
        } catch (Throwable e) {
            throw wrap("MPI_Init_thread", e);
        }
    }

    int rank() {
        return intOf("MPI_Comm_rank", commRank);
    }

    int size() {
        return intOf("MPI_Comm_size", commSize);
    }

    private int intOf(String call, MethodHandle h) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(INT);
            check(call, (int) h.invokeExact(commWorld, out));
            return out.get(INT, 0);
        } catch (Throwable e) {
            throw wrap(call, e);
        }
    }

    /** {@code MPI_Allreduce(MPI_IN_PLACE, data, count, type, MPI_SUM, MPI_COMM_WORLD)}. */
    void allReduceInPlace(MemorySegment data, int count, MemorySegment type) {
        try {
            check("MPI_Allreduce", (int) allreduce.invokeExact(IN_PLACE, data, count, type, sum, commWorld));
        } catch (Throwable e) {
            throw wrap("MPI_Allreduce", e);
        }
    }

    /**
     * {@code MPI_Reduce_scatter(MPI_IN_PLACE, data, counts, type, MPI_SUM, MPI_COMM_WORLD)}: the sum of this rank's
     * block, the blocks of {@code counts} laid end to end in {@code data}, left at its start.
     */
    void reduceScatterInPlace(MemorySegment data, int[] counts, MemorySegment type) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment c = arena.allocateFrom(INT, counts);
            check("MPI_Reduce_scatter", (int) reduceScatter.invokeExact(IN_PLACE, data, c, type, sum, commWorld));
        } catch (Throwable e) {
            throw wrap("MPI_Reduce_scatter", e);
        }
    }

    /**
     * {@code MPI_Allgatherv(MPI_IN_PLACE, 0, type, data, counts, displacements, type, MPI_COMM_WORLD)}: each rank's
     * block, where it lies in {@code data}, copied to every other rank.
     */
    void allGatherInPlace(MemorySegment data, int[] counts, int[] displacements, MemorySegment type) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment c = arena.allocateFrom(INT, counts);
            MemorySegment d = arena.allocateFrom(INT, displacements);
            check("MPI_Allgatherv", (int) allGatherv.invokeExact(IN_PLACE, 0, type, data, c, d, type, commWorld));
        } catch (Throwable e) {
            throw wrap("MPI_Allgatherv", e);
        }
    }

    void broadcast(MemorySegment data, int count, MemorySegment type, int root) {
        try {
            check("MPI_Bcast", (int) bcast.invokeExact(data, count, type, root, commWorld));
        } catch (Throwable e) {
            throw wrap("MPI_Bcast", e);
        }
    }

    void abort(int code) {
        try {
            int ignored = (int) abort.invokeExact(commWorld, code);
        } catch (Throwable e) {
            throw wrap("MPI_Abort", e);
        }
    }

    void finish() {
        try {
            check("MPI_Finalize", (int) finalizeMpi.invokeExact());
        } catch (Throwable e) {
            throw wrap("MPI_Finalize", e);
        }
    }

    String version() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment text = arena.allocate(4096);
            MemorySegment length = arena.allocate(INT);
            check("MPI_Get_library_version", (int) libraryVersion.invokeExact(text, length));
            String v = text.getString(0);
            int comma = v.indexOf(',');
            return (comma > 0 ? v.substring(0, comma) : v).strip();
        } catch (Throwable e) {
            throw wrap("MPI_Get_library_version", e);
        }
    }
}
