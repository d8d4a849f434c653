# poolconv_add_tuned_library: a model's layers as shape-specialized kernels, tuned at build time.
#
#   poolconv_add_tuned_library(resnet50 LAYERS resnet50.json [TARGET host|<Halide target>]
#                              [BUDGET_S seconds] [THREADS n] [NAME name])
#   target_link_libraries(app PRIVATE resnet50)   # then #include "resnet50.h"
#
# Runs poolconv-tune (the target poolconv::tune) when the layer file or the tool changes, and
# makes <target> an imported library: lib<NAME>.a, its header <NAME>.h (one function or class per
# layer, namespace NAME) and poolconv::poolconv. NAME defaults to <target>; the reports
# (<NAME>-report.json, .txt) sit next to the library in ${CMAKE_CURRENT_BINARY_DIR}/<target>/.
# TARGET defaults to host: tuned by timing on the build machine, for its best CPU path.
include_guard(GLOBAL)

function(poolconv_add_tuned_library TARGET)
    cmake_parse_arguments(ARG "" "LAYERS;TARGET;BUDGET_S;THREADS;NAME" "" ${ARGN})
    if (NOT ARG_LAYERS)
        message(FATAL_ERROR "poolconv_add_tuned_library(${TARGET}): LAYERS <file> is required")
    endif ()
    if (NOT TARGET poolconv::tune)
        message(FATAL_ERROR "poolconv_add_tuned_library(${TARGET}): this poolconv has no poolconv-tune "
                            "(native builds with POOLCONV_BUILD_TUNE=ON have it)")
    endif ()
    set(name "${TARGET}")
    if (ARG_NAME)
        set(name "${ARG_NAME}")
    endif ()
    foreach (option_default IN ITEMS "TARGET=host" "BUDGET_S=600" "THREADS=1")
        string(REPLACE "=" ";" option_default "${option_default}")
        list(GET option_default 0 option)
        if (NOT ARG_${option})
            list(GET option_default 1 ARG_${option})
        endif ()
    endforeach ()
    cmake_path(ABSOLUTE_PATH ARG_LAYERS BASE_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}")
    set(dir "${CMAKE_CURRENT_BINARY_DIR}/${TARGET}")
    file(MAKE_DIRECTORY "${dir}")
    set(outputs "${dir}/lib${name}.a" "${dir}/${name}.h" "${dir}/${name}-report.json" "${dir}/${name}-report.txt")
    add_custom_command(OUTPUT ${outputs}
                       COMMAND poolconv::tune --layers "${ARG_LAYERS}" --name "${name}" --out "${dir}"
                               --target "${ARG_TARGET}" --budget-s "${ARG_BUDGET_S}" --threads "${ARG_THREADS}"
                       DEPENDS "${ARG_LAYERS}" poolconv::tune
                       COMMENT "poolconv-tune: ${name} from ${ARG_LAYERS} (budget ${ARG_BUDGET_S} s)"
                       VERBATIM)
    add_custom_target(${TARGET}_tuning DEPENDS ${outputs})
    add_library(${TARGET} STATIC IMPORTED GLOBAL)
    set_target_properties(${TARGET} PROPERTIES IMPORTED_LOCATION "${dir}/lib${name}.a"
                                               INTERFACE_INCLUDE_DIRECTORIES "${dir}"
                                               INTERFACE_LINK_LIBRARIES poolconv::poolconv)
    add_dependencies(${TARGET} ${TARGET}_tuning)
endfunction()
