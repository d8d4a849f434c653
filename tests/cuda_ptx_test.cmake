# ctest script: the CUDA kernels' PTX assembles for real GPUs. Halide embeds each CUDA kernel's
# PTX module as text in its object; this pulls it out and assembles it with ptxas for every
# architecture in ARCHS (e.g. sm_80 sm_90), and checks that no kernel uses local memory (a stack
# frame or spills): every plan keeps its accumulators and partial results in registers, which a
# block-level array that is not striped across warp lanes, or too large a tile, would break.
# Without ptxas the test says so and is skipped.
# Variables: OBJECTS (the CUDA kernels' object files), PTXAS, ARCHS, WORK_DIR.
if (NOT PTXAS OR NOT EXISTS "${PTXAS}")
    message(STATUS "ptxas not found (looked in PATH and /usr/local/cuda/bin): PTX not assembled")
    return()
endif ()
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")

set(objects ${OBJECTS})
list(LENGTH objects object_count)
if (object_count EQUAL 0)
    message(FATAL_ERROR "no CUDA kernel objects given")
endif ()

set(modules 0)
foreach (object IN LISTS objects)
    get_filename_component(name "${object}" NAME_WE)
    # The PTX module: the printable run of text that declares a target GPU.
    file(STRINGS "${object}" texts NEWLINE_CONSUME REGEX "\\.target[ \t]+sm_[0-9]+")
    if (NOT texts)
        message(FATAL_ERROR "${name}: no PTX module in ${object}")
    endif ()
    set(index 0)
    foreach (ptx IN LISTS texts)
        # Keep from the first directive on (the run may start with a few stray printable bytes).
        string(FIND "${ptx}" "//" start)
        string(FIND "${ptx}" ".version" version_at)
        if (start LESS 0 OR start GREATER version_at)
            set(start ${version_at})
        endif ()
        string(SUBSTRING "${ptx}" ${start} -1 ptx)
        set(ptx_file "${WORK_DIR}/${name}_${index}.ptx")
        file(WRITE "${ptx_file}" "${ptx}\n")
        foreach (arch IN LISTS ARCHS)
            execute_process(COMMAND "${PTXAS}" -v -arch=${arch} "${ptx_file}" -o "${WORK_DIR}/${name}_${index}_${arch}.cubin"
                            RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_VARIABLE out)
            if (NOT rc EQUAL 0)
                message(FATAL_ERROR "${name}: ptxas -arch=${arch} failed on ${ptx_file}:\n${err}")
            endif ()
            if ("${out}${err}" MATCHES "[1-9][0-9]* bytes (stack frame|spill (stores|loads))")
                message(FATAL_ERROR "${name}: uses local memory on ${arch} (${CMAKE_MATCH_0}):\n${err}")
            endif ()
            if (NOT "${out}${err}" MATCHES "Used [0-9]+ registers")
                message(FATAL_ERROR "${name}: ptxas -v printed no register report:\n${err}")
            endif ()
        endforeach ()
        math(EXPR index "${index} + 1")
        math(EXPR modules "${modules} + 1")
    endforeach ()
endforeach ()
message(STATUS "${modules} PTX modules from ${object_count} CUDA kernels assembled for ${ARCHS}, no local memory")
