# The variants manifest: every kernel the build compiles, and every algorithm variant the
# autoschedulers plan, come from these lists. generators/CMakeLists.txt builds the kernels,
# tests/CMakeLists.txt plans each algorithm with every autoscheduler, and the build writes
# algorithm_variants.txt (for tools/autoschedule.sh) and checked_in_schedules.h (for
# schedules/autoscheduled.cpp). Adding a variant is one line here.

# Element types: <short name, as in kernel names>=<Halide type, as the generators' data_type>.
set(POOLCONV_TYPES f32=float32 f16=float16 bf16=bfloat16 f64=float64 i8=int8 u8=uint8)

# Algorithm variants, "<name> <generator> [generator params]": the pipelines whose algorithm or
# estimates differ. Each has its checked-in autoscheduler results,
# schedules/autoscheduled/<author>/<name>.schedule.h.
set(POOLCONV_ALGORITHMS
    "max_pool max_pool"
    "max_pool_unpadded max_pool padded=false"
    "max_pool_with_indices max_pool with_indices=true"
    "max_pool_global max_pool global=true"
    "max_pool_rows_first max_pool rows_first=true"
    "max_pool_flat_plane max_pool flat_plane=true"
    "avg_pool avg_pool"
    "avg_pool_unpadded avg_pool padded=false"
    "avg_pool_global avg_pool global=true"
    "avg_pool_rows_first avg_pool rows_first=true"
    "avg_pool_flat_plane avg_pool flat_plane=true"
    "convolution convolution"
    "convolution_pointwise convolution plan=pointwise"
    "convolution_depthwise convolution plan=depthwise"
    "convolution_depthwise_1d convolution plan=depthwise_1d"
    "convolution_channel_vectors convolution plan=channel_vectors")

# Kernels, "<name> <algorithm> <types> [more generator params]": the kernel conv_f32_row_pairs is
# the name with {type} replaced, built from the algorithm's generator and params plus the
# data_type and the params here, once per CPU instruction set (POOLCONV_ISAS) and on the GPU
# backends that compute in its type (generators/CMakeLists.txt), except CPU-only plans (and on
# CPUs only for f32 where POOLCONV_CPU_F32_ONLY_KERNELS says so).
# <types>: short names joined by commas.
set(POOLCONV_KERNELS
    "max_pool_{type} max_pool f32,f16,bf16,f64,i8,u8"
    "max_pool_{type}_unpadded max_pool_unpadded f32,f16,bf16,f64,i8,u8"
    "max_pool_{type}_indices_i32 max_pool_with_indices f32,f16,bf16,f64,i8,u8 index_bits=32"
    "max_pool_{type}_indices_i64 max_pool_with_indices f32,f16,bf16,f64,i8,u8 index_bits=64"
    "global_max_pool_{type} max_pool_global f32,f16,bf16,f64,i8,u8"
    "max_pool_{type}_rows_first max_pool_rows_first f32"
    "max_pool_{type}_flat_plane max_pool_flat_plane f32"
    "avg_pool_{type} avg_pool f32,f16,bf16,f64"
    "avg_pool_{type}_unpadded avg_pool_unpadded f32,f16,bf16,f64"
    "global_avg_pool_{type} avg_pool_global f32,f16,bf16,f64"
    "avg_pool_{type}_rows_first avg_pool_rows_first f32"
    "avg_pool_{type}_flat_plane avg_pool_flat_plane f32"
    "conv_{type} convolution f32,f16,bf16,f64"
    "conv_{type}_depthwise convolution_depthwise f32,f16,bf16,f64"
    "conv_{type}_depthwise_1d convolution_depthwise_1d f32,f16,bf16,f64"
    "conv_{type}_pointwise convolution_pointwise f32,f16,bf16,f64"
    "conv_{type}_row_pairs convolution f32,f16,bf16,f64 plan=row_pairs"
    "conv_{type}_channel_vectors convolution_channel_vectors f32"
    "conv_{type}_one_vector convolution f32 plan=one_vector"
    "conv_{type}_wide_window convolution f32,f16,bf16,f64 plan=wide_window")

# Convolution plans built for CPUs only: on GPUs the general and depthwise plans serve those
# convolutions too (the runtime takes a plan where its kernel exists: schedules/conv_plan.h).
set(POOLCONV_CPU_ONLY_PLANS row_pairs depthwise_1d pointwise channel_vectors one_vector)
# And those built for AVX-512 only: channel vectors (schedules/conv_plan.h) were slower than row
# pairs with AVX2's 16 registers (and are sized for 32 registers of 16 f32 lanes); one vector is
# for cores that run 512-bit FMAs at half the rate of two pipes (schedules/conv_plan.h).
set(POOLCONV_AVX512_ONLY_PLANS channel_vectors one_vector)
# And one for GPUs only: the general plan without shared-memory staging, for windows too wide to
# stage (schedules/conv_plan.h); CPUs read every window where it lies anyway.
set(POOLCONV_GPU_ONLY_PLANS wide_window)

# Kernels built on CPUs for f32 only: argmax with i32 indices. A CPU call of another type runs the
# i64 kernel and narrows its indices (runtime/pooling.cpp; every index fits, since tensors hold
# fewer than 2^31 elements), which spares the build 15 x86 kernels and 5 NEON ones of the slowest
# kind to compile. GPUs keep theirs (f32, i8 and u8; f16 on CUDA): a call on device tensors has no
# CPU pass.
set(POOLCONV_CPU_F32_ONLY_KERNELS "max_pool_{type}_indices_i32")

# Algorithm variants built for the AVX2 and AVX-512 paths only: the rows-first and flat-plane
# MaxPool and AvgPool, measured there (schedules/pool_limits.h, rows_first_kernel_pays and
# flat_plane_kernel_pays); elsewhere the padded kernels serve.
set(POOLCONV_X86_AVX_ONLY_ALGORITHMS max_pool_rows_first avg_pool_rows_first max_pool_flat_plane avg_pool_flat_plane)

# Authors of the checked-in autoscheduler results (schedules/autoscheduled/<author>/), which the
# build also compiles as f32 kernels <kernel>_<author> on the avx2 path (the target they were
# planned for), with POOLCONV_AUTOSCHEDULED_KERNELS.
set(POOLCONV_CHECKED_IN_AUTHORS adams2019 mullapudi2016)
