# ctest script: poolconv-tune's command line on bad input. A bad layer file, a bad option: one
# message naming the problem, exit status 1 (2 for usage), and nothing written.
# Variables: TOOL, WORK_DIR.
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")
file(WRITE "${WORK_DIR}/bad.json" [=[
[{"name": "a", "op": "maxpool", "input_shape": [1, 2, 8, 8], "kernel": [2, 2]},
 {"name": "b", "op": "conv", "input_shape": [1, 2, 8, 8], "weights_shape": [4, 2, 3, 3], "strides": [0, 1]}]
]=])

file(WRITE "${WORK_DIR}/good.json" [=[[{"name": "a", "op": "maxpool", "input_shape": [1, 2, 8, 8], "kernel": [2, 2]}]]=])

function(expect_failure STATUS NEEDLE)
    execute_process(COMMAND "${TOOL}" ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
    if (NOT rc EQUAL STATUS)
        message(FATAL_ERROR "poolconv-tune ${ARGN}: exit status ${rc}, expected ${STATUS}\n${out}\n${err}")
    endif ()
    string(FIND "${err}" "${NEEDLE}" at)
    if (at EQUAL -1)
        message(FATAL_ERROR "poolconv-tune ${ARGN}: stderr does not say \"${NEEDLE}\":\n${err}")
    endif ()
    if (EXISTS "${WORK_DIR}/out")
        message(FATAL_ERROR "poolconv-tune ${ARGN}: wrote ${WORK_DIR}/out")
    endif ()
endfunction()

expect_failure(1 [=[layer 1 (b): field "strides": values must be >= 1]=]
               --layers "${WORK_DIR}/bad.json" --name bad --out "${WORK_DIR}/out")
expect_failure(1 "cannot open the layer file" --layers "${WORK_DIR}/missing.json" --name bad --out "${WORK_DIR}/out")
expect_failure(1 "not an ONNX model" --onnx "${WORK_DIR}/bad.json" --name bad --out "${WORK_DIR}/out")
expect_failure(2 "must be a C identifier" --layers "${WORK_DIR}/bad.json" --name 9lives --out "${WORK_DIR}/out")
expect_failure(2 "give one of --layers and --onnx" --name bad --out "${WORK_DIR}/out")
expect_failure(2 "--budget-s: not a number" --layers "${WORK_DIR}/bad.json" --name x --out "${WORK_DIR}/out" --budget-s soon)
expect_failure(1 "not a Halide target" --layers "${WORK_DIR}/good.json" --name x --out "${WORK_DIR}/out" --target pdp-11)
