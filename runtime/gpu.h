// GPU backends as the runtime sees them: Halide device interfaces, device probes, and tensors in
// device memory. Internal to the runtime.
#pragma once

#include <string>

#include "HalideRuntime.h"
#include "poolconv/runtime.h"
#include "poolconv/tensor.h"

namespace poolconv::detail {

// Halide's device interface for GPU path `isa`; nullptr for CPU paths and GPU paths not built.
const halide_device_interface_t *device_interface(Isa isa);

// Whether `isa`'s driver loads and gives a device; asked once per backend.
bool gpu_present(Isa isa);

// Throws Error unless this build has kernels for GPU path `isa` and the machine has its device;
// the message begins with `lead` ("gpu_context:"), then "this build has no cuda kernels ..." or
// "no cuda device was found".
void require_gpu(const std::string &lead, Isa isa);

// The GPU path that owns `memory` (Memory::cuda -> Isa::cuda, ...); Isa::best for host memory.
Isa memory_isa(Memory memory);

// Points `buffer` (host pointer null) at the device allocation `data` in `memory`, without a copy;
// detach_device_memory undoes it before the buffer goes away. Both throw Error on failure.
void wrap_device_memory(halide_buffer_t *buffer, Memory memory, void *data);
void detach_device_memory(halide_buffer_t *buffer, Memory memory) noexcept;

}  // namespace poolconv::detail
