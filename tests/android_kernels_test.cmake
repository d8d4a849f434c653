# ctest script: with no Android NDK on this machine, checks what an Android build's kernels would
# be. The host generator emits arm-64-android static libraries for one variant of each generator;
# each must be AArch64 ELF code with NEON (Advanced SIMD) vector arithmetic in it. The schedules
# are the AArch64 build's (arm-64-linux, tested under qemu): only the OS differs, so the quickest
# convolution variants to compile stand for the rest (the general one takes over a minute).
# Variables: GENERATOR (the host generator executable), OBJDUMP (aarch64 objdump), WORK_DIR.
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")

# name | generator | generator params | an instruction the kernel must contain
set(variants
    "max_pool_f16_indices_i64|max_pool|data_type=float16 with_indices=true|cmgt"
    "avg_pool_f32|avg_pool|data_type=float32|fadd"
    "conv_f32_pointwise|convolution|data_type=float32 plan=pointwise|fmla"
    "conv_f32_depthwise_1d|convolution|data_type=float32 plan=depthwise_1d|fmla")

foreach (variant IN LISTS variants)
    string(REPLACE "|" ";" fields "${variant}")
    list(GET fields 0 name)
    list(GET fields 1 generator)
    list(GET fields 2 params)
    list(GET fields 3 instruction)
    separate_arguments(params)
    set(lib "poolconv_${name}_android")
    execute_process(COMMAND "${GENERATOR}" -g ${generator} -f ${lib} -e static_library,c_header -o "${WORK_DIR}"
                            target=arm-64-android-no_runtime ${params}
                    RESULT_VARIABLE rc ERROR_VARIABLE err)
    if (NOT rc EQUAL 0)
        message(FATAL_ERROR "${name}: the generator failed for arm-64-android:\n${err}")
    endif ()

    execute_process(COMMAND "${OBJDUMP}" -d "${WORK_DIR}/${lib}.a" RESULT_VARIABLE rc OUTPUT_VARIABLE asm ERROR_VARIABLE err)
    if (NOT rc EQUAL 0)
        message(FATAL_ERROR "${name}: ${OBJDUMP} cannot read ${lib}.a as AArch64 code:\n${err}")
    endif ()
    if (NOT asm MATCHES "file format elf64-littleaarch64")
        message(FATAL_ERROR "${name}: ${lib}.a is not AArch64 ELF")
    endif ()
    # Vector arithmetic on 4 x 32-bit (or 8 x 16-bit) lanes of v registers, e.g. "fmla v0.4s, v1.4s, v2.s[0]";
    # MaxPool compares integer keys (cmgt).
    string(REGEX MATCHALL "\t${instruction}\tv[0-9]+\\.(4s|8h)" hits "${asm}")
    list(LENGTH hits count)
    if (count EQUAL 0)
        message(FATAL_ERROR "${name}: no NEON '${instruction}' on vector registers in ${lib}.a")
    endif ()
    message(STATUS "${name}: AArch64, ${count} NEON ${instruction} instructions")
endforeach ()
