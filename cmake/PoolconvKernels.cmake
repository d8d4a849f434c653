# AOT kernels: every generator variant is compiled once per instruction set in POOLCONV_ISAS,
# each into its own C function `poolconv_<name>_<isa>`; runtime/kernel_table.cpp picks one per call
# (the CPU's best, or the one forced by poolconv::set_isa / POOLCONV_ISA). We dispatch ourselves
# instead of using Halide's multi-target wrapper because that wrapper caches its first choice, which
# would make forcing each path in tests and benchmarks impossible.
#
#   poolconv_add_kernel(max_pool_f32 GENERATOR max_pool PARAMS data_type=float32)
#   ...
#   poolconv_embed_kernels(poolconv)   # objects + generated kernel table into the poolconv archive

include_guard(GLOBAL)

# <isa>=<Halide target>. x86 feature lists are cumulative: Halide's `avx512` alone is only
# AVX-512F/CD, while avx512_skylake adds VL/BW/DQ. `cmake` stands for this toolchain's arch-os.
# The runtime checks the CPU for each path's features from this same list (poolconv_isas.h, made by
# poolconv_embed_kernels).
# On 64-bit ARM (Linux, Android) NEON is the baseline and the one path.
if (Halide_CMAKE_TARGET MATCHES "^arm-64-")
    set(default_isas "neon=cmake")
else ()
    set(default_isas
        "avx512=cmake-sse41-avx-f16c-fma-avx2-avx512-avx512_skylake"
        "avx2=cmake-sse41-avx-f16c-fma-avx2"
        "baseline=cmake")
endif ()
set(POOLCONV_ISAS "${default_isas}" CACHE STRING "<isa>=<Halide target> pairs; every kernel is compiled for each")

# GPU backends: <isa>=<Halide target> pairs for the kernels that ask for them (GPU ...). The same
# GPU schedules serve both: CUDA for NVIDIA GPUs (PTX for an explicit capability, JIT-compiled by
# the driver for newer GPUs) and OpenCL, which CI runs on PoCL, a CPU OpenCL device. Empty: CPU only.
# Cross builds (ARM) default to none.
if (CMAKE_CROSSCOMPILING)
    set(default_gpu_targets "")
else ()
    set(default_gpu_targets "cuda=cmake-cuda-cuda_capability_80" "opencl=cmake-opencl")
endif ()
set(POOLCONV_GPU_TARGETS "${default_gpu_targets}" CACHE STRING
    "<isa>=<Halide target> pairs for GPU kernels (isa: cuda, opencl); empty for CPU only")

# A build may link the kernels another build compiled instead of compiling them again: the
# sanitizer build in scripts/run-tests.sh does, since kernels are never instrumented. That build
# directory must be built already, with the same POOLCONV_ISAS.
set(POOLCONV_KERNELS_FROM "" CACHE PATH "A built poolconv build directory whose CPU kernels this build links (same POOLCONV_ISAS)")

option(POOLCONV_EMIT_STMT "Also write each kernel's lowered statement (.stmt) for review" OFF)

# The autoschedulers' checked-in results (schedules/autoscheduled/) as kernels of their own, for
# tests and the bench: planned for the avx2 path, so built only where POOLCONV_ISAS has it.
option(POOLCONV_AUTOSCHEDULED_KERNELS "Also build the checked-in autoscheduler results as kernels (x86 avx2 path)" ON)
if (POOLCONV_AUTOSCHEDULED_KERNELS AND POOLCONV_ISAS MATCHES "(^|;)avx2=")
    set(POOLCONV_HAVE_AUTOSCHEDULED_KERNELS ON)
else ()
    set(POOLCONV_HAVE_AUTOSCHEDULED_KERNELS OFF)
endif ()

# GPU lists the GPU isas (of POOLCONV_GPU_TARGETS) the variant is also compiled for; ONLY_ISAS, if
# given, the CPU isas (of POOLCONV_ISAS) it is compiled for instead of all of them; NO_CPU, none.
function(poolconv_add_kernel NAME)
    cmake_parse_arguments(ARG "NO_CPU" "GENERATOR" "PARAMS;GPU;ONLY_ISAS" ${ARGN})
    set(pairs "")
    foreach (pair IN LISTS POOLCONV_ISAS)
        string(REGEX REPLACE "=.*" "" isa "${pair}")
        if (NOT ARG_NO_CPU AND (NOT ARG_ONLY_ISAS OR isa IN_LIST ARG_ONLY_ISAS))
            list(APPEND pairs "${pair}")
        endif ()
    endforeach ()
    foreach (pair IN LISTS POOLCONV_GPU_TARGETS)
        string(REGEX REPLACE "=.*" "" isa "${pair}")
        if (isa IN_LIST ARG_GPU)
            list(APPEND pairs "${pair}")
        endif ()
    endforeach ()
    foreach (pair IN LISTS pairs)
        string(REPLACE "=" ";" pair "${pair}")
        list(GET pair 0 isa)
        list(GET pair 1 target)
        set(lib "poolconv_${NAME}_${isa}")
        set_property(GLOBAL APPEND PROPERTY POOLCONV_KERNEL_TABLE "X(${NAME}, ${isa})")
        set_property(GLOBAL APPEND PROPERTY POOLCONV_KERNEL_HEADERS "#include \"${lib}.h\"")
        if (POOLCONV_KERNELS_FROM)
            poolconv_reuse_kernel(${lib})
            continue()
        endif ()
        get_property(runtime GLOBAL PROPERTY POOLCONV_SHARED_RUNTIME)
        set(use_runtime "")
        if (runtime)
            set(use_runtime USE_RUNTIME ${runtime})
        endif ()
        set(extra "")
        if (POOLCONV_EMIT_STMT)
            set(extra STMT stmt_file)
        endif ()
        add_halide_library(${lib} FROM poolconv_generators
                           GENERATOR ${ARG_GENERATOR}
                           FUNCTION_NAME ${lib}
                           TARGETS ${target}
                           PARAMS ${ARG_PARAMS}
                           ${use_runtime}
                           ${extra})
        if (NOT runtime)
            # The first kernel's Halide runtime becomes the one runtime all kernels share.
            set_property(GLOBAL PROPERTY POOLCONV_SHARED_RUNTIME "${lib}.runtime")
            set_property(GLOBAL APPEND PROPERTY POOLCONV_KERNEL_LIBRARIES "${lib}.runtime")
        endif ()
        set_property(GLOBAL APPEND PROPERTY POOLCONV_KERNEL_LIBRARIES ${lib})
    endforeach ()
endfunction()

# POOLCONV_KERNELS_FROM: kernel LIB's object and header from that build, and (once) the Halide
# runtime object all its kernels share.
function(poolconv_reuse_kernel LIB)
    set(dir "${POOLCONV_KERNELS_FROM}/generators")
    if (NOT EXISTS "${dir}/${LIB}.o" OR NOT EXISTS "${dir}/${LIB}.h")
        message(FATAL_ERROR "POOLCONV_KERNELS_FROM: no ${LIB}.o in ${dir}; build that directory first, "
                            "with the same POOLCONV_ISAS and POOLCONV_AUTOSCHEDULED_KERNELS")
    endif ()
    get_property(objects GLOBAL PROPERTY POOLCONV_KERNEL_OBJECTS)
    if (NOT objects)
        file(GLOB runtime "${dir}/*.runtime.o")
        list(LENGTH runtime count)
        if (NOT count EQUAL 1)
            message(FATAL_ERROR "POOLCONV_KERNELS_FROM: expected one Halide runtime object in ${dir}, found ${count}")
        endif ()
        set_property(GLOBAL APPEND PROPERTY POOLCONV_KERNEL_OBJECTS "${runtime}")
    endif ()
    set_property(GLOBAL APPEND PROPERTY POOLCONV_KERNEL_OBJECTS "${dir}/${LIB}.o")
endfunction()

# Makes TARGET (a static library) self-contained: it gets the objects of every kernel and of the
# shared Halide runtime, so consumers link one archive and need no Halide installation; and it
# gets poolconv_kernels.h, which includes every kernel header and lists the kernels as
# POOLCONV_FOR_EACH_KERNEL(X) -> X(name, isa) ...
function(poolconv_embed_kernels TARGET)
    get_property(libs GLOBAL PROPERTY POOLCONV_KERNEL_LIBRARIES)
    foreach (lib IN LISTS libs)
        get_target_property(srcs ${lib} SOURCES)
        get_target_property(dir ${lib} BINARY_DIR)
        foreach (src IN LISTS srcs)
            if (NOT IS_ABSOLUTE "${src}")
                set(src "${dir}/${src}")
            endif ()
            set_source_files_properties("${src}" PROPERTIES GENERATED TRUE EXTERNAL_OBJECT TRUE)
            target_sources(${TARGET} PRIVATE "${src}")
        endforeach ()
        add_dependencies(${TARGET} ${lib})
        target_include_directories(${TARGET} SYSTEM PRIVATE "${dir}")
    endforeach ()
    get_property(objects GLOBAL PROPERTY POOLCONV_KERNEL_OBJECTS)
    if (objects)
        set_source_files_properties(${objects} PROPERTIES EXTERNAL_OBJECT TRUE)
        target_sources(${TARGET} PRIVATE ${objects})
        target_include_directories(${TARGET} SYSTEM PRIVATE "${POOLCONV_KERNELS_FROM}/generators")
    endif ()

    # poolconv_isas.h: the Halide target features of every CPU path in POOLCONV_ISAS, which the
    # runtime checks the CPU for before it runs that path's kernels (runtime/dispatch.cpp).
    set(isa_rows "")
    foreach (pair IN LISTS POOLCONV_ISAS)
        string(REPLACE "=" ";" pair "${pair}")
        list(GET pair 0 isa)
        list(GET pair 1 target)
        # Drop the arch-os part (`cmake`, `host` or a triple); the rest are feature names.
        string(REPLACE "-" ";" features "${target}")
        list(GET features 0 first)
        if (first STREQUAL "cmake" OR first STREQUAL "host")
            list(REMOVE_AT features 0)
        else ()
            list(REMOVE_AT features 0 1 2)
        endif ()
        list(TRANSFORM features PREPEND "halide_target_feature_")
        list(JOIN features ", " features)
        list(APPEND isa_rows "{\"${isa}\", {${features}}}")
    endforeach ()
    list(JOIN isa_rows ", \\\n    " isa_rows)
    file(CONFIGURE OUTPUT "${CMAKE_CURRENT_BINARY_DIR}/generated/poolconv_isas.h" CONTENT
         "// Generated by cmake/PoolconvKernels.cmake from POOLCONV_ISAS: each CPU path's Halide target features.\n#pragma once\n\n#define POOLCONV_CPU_ISA_FEATURES \\\n    ${isa_rows}\n")

    get_property(headers GLOBAL PROPERTY POOLCONV_KERNEL_HEADERS)
    get_property(table GLOBAL PROPERTY POOLCONV_KERNEL_TABLE)
    list(JOIN headers "\n" headers)
    list(JOIN table " \\\n    " table)
    set(out "${CMAKE_CURRENT_BINARY_DIR}/generated/poolconv_kernels.h")
    file(CONFIGURE OUTPUT "${out}" CONTENT
         "// Generated by cmake/PoolconvKernels.cmake: every AOT kernel, once per instruction set.\n#pragma once\n\n${headers}\n\n#define POOLCONV_FOR_EACH_KERNEL(X) \\\n    ${table}\n")
    # HalideRuntime.h, which the kernel headers include: a build-time include path only, so the
    # installed package does not depend on Halide.
    get_target_property(halide_runtime_includes Halide::Runtime INTERFACE_INCLUDE_DIRECTORIES)
    target_include_directories(${TARGET} SYSTEM PRIVATE "${CMAKE_CURRENT_BINARY_DIR}/generated"
                               "$<BUILD_INTERFACE:${halide_runtime_includes}>")
    # What the Halide runtime itself needs (thread pool, dlopen of optional GPU drivers).
    target_link_libraries(${TARGET} PUBLIC Threads::Threads ${CMAKE_DL_LIBS})
endfunction()
