# ctest script: installs this build into a scratch prefix, then configures, builds and runs
# examples/consumer (and, where the package has poolconv-tune, examples/tuned) against it with
# find_package(poolconv), as an outside project would.
# Variables: BUILD_DIR, SOURCE_DIR, WORK_DIR.
file(REMOVE_RECURSE "${WORK_DIR}")
set(prefix "${WORK_DIR}/prefix")

function(run)
    execute_process(COMMAND ${ARGV} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
    if (NOT rc EQUAL 0)
        message(FATAL_ERROR "command failed (${rc}): ${ARGV}\n${out}\n${err}")
    endif ()
    message(STATUS "${out}")
endfunction()

run("${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${prefix}")
run("${CMAKE_COMMAND}" -S "${SOURCE_DIR}/examples/consumer" -B "${WORK_DIR}/build"
    "-DCMAKE_PREFIX_PATH=${prefix}" -DCMAKE_BUILD_TYPE=Release)
run("${CMAKE_COMMAND}" --build "${WORK_DIR}/build")
run("${WORK_DIR}/build/consumer")

# The tuned example: poolconv_add_tuned_library from the installed package, on ResNet-50's layer
# file with a budget of a few seconds (each distinct layer then gets our schedule, specialized).
file(GLOB_RECURSE tune_module "${prefix}/*/PoolconvTune.cmake")
if (tune_module)
    run("${CMAKE_COMMAND}" -S "${SOURCE_DIR}/examples/tuned" -B "${WORK_DIR}/build-tuned"
        "-DCMAKE_PREFIX_PATH=${prefix}" -DCMAKE_BUILD_TYPE=Release -DPOOLCONV_TUNE_BUDGET_S=5)
    run("${CMAKE_COMMAND}" --build "${WORK_DIR}/build-tuned")
    run("${WORK_DIR}/build-tuned/resnet50_stem")
endif ()
