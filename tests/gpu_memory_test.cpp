// Tensors already in GPU memory (TensorView::memory): the OpenCL path on cl_mem buffers (PoCL in
// CI, a CPU OpenCL device), against the reference, with no set_isa; and the errors for tensors in
// different places, types a GPU has no kernel for, and GPUs this machine lacks. The CUDA path
// shares all of it but the wrap call (halide_cuda_wrap_device_ptr); it needs a real GPU.
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "reference/reference_convolution.h"
#include "tests/test_util.h"

namespace poolconv {
namespace {

using test::Rng;
using test::Tensor;
using test::uniform;

bool built(Isa isa) {
    const std::vector<Isa> isas = built_isas();
    return std::find(isas.begin(), isas.end(), isa) != isas.end();
}

// Copies tensors to and from cl_mem buffers in poolconv's OpenCL context, on its queue (so they
// are ordered with the kernels).
class OpenClMemory : public ::testing::Test {
protected:
    void SetUp() override {
        if (!built(Isa::opencl)) GTEST_SKIP() << "this build has no opencl kernels";
        try {
            gpu_ = gpu_context(Isa::opencl);
        } catch (const Error &e) {
            GTEST_SKIP() << e.what();
        }
        set_isa(Isa::best);  // device tensors choose their GPU themselves
    }
    void TearDown() override {
        for (cl_mem m : buffers_) clReleaseMemObject(m);
    }

    cl_context context() const { return static_cast<cl_context>(gpu_.context); }
    cl_command_queue queue() const { return static_cast<cl_command_queue>(gpu_.queue); }

    // A device copy of `t`'s whole storage, viewed like `t`.
    TensorView upload(const Tensor &t) {
        cl_int err = CL_SUCCESS;
        cl_mem m = clCreateBuffer(context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, t.storage_bytes(),
                                  const_cast<void *>(t.data()), &err);
        EXPECT_EQ(err, CL_SUCCESS) << "clCreateBuffer";
        buffers_.push_back(m);
        TensorView v = t.view();
        v.data = m;
        v.memory = Memory::opencl;
        return v;
    }
    // Reads a device view made by upload() back into `t` (blocking).
    void download(const TensorView &device, Tensor &t) {
        const cl_int err = clEnqueueReadBuffer(queue(), static_cast<cl_mem>(device.data), CL_TRUE, 0,
                                               t.storage_bytes(), t.data(), 0, nullptr, nullptr);
        ASSERT_EQ(err, CL_SUCCESS) << "clEnqueueReadBuffer";
    }

    GpuContext gpu_;
    std::vector<cl_mem> buffers_;
};

TEST_F(OpenClMemory, PoolingMatchesReference) {
    Rng rng(20261123);
    for (int trial = 0; trial < 60; trial++) {
        const DType dtype = trial % 3 == 0 ? DType::u8 : trial % 3 == 1 ? DType::i8 : DType::f32;
        const bool average = dtype == DType::f32 && trial % 2 == 0;
        const int spatial = uniform(rng, 1, 3);
        std::vector<int64_t> shape = {uniform(rng, 1, 2), uniform(rng, 1, 5)};
        MaxPoolAttributes a;
        for (int i = 0; i < spatial; i++) {
            shape.push_back(uniform(rng, 5, spatial == 3 ? 9 : 21));  // >= the largest dilated kernel
            const int k = uniform(rng, 1, 3);
            a.kernel.push_back(k);
            a.strides.push_back(uniform(rng, 1, 2));
            a.dilations.push_back(uniform(rng, 1, 2));
            a.pads_begin.push_back(uniform(rng, 0, k - 1));
            a.pads_end.push_back(uniform(rng, 0, k - 1));
        }
        a.rounding = trial % 4 == 0 ? Rounding::ceil : Rounding::floor;
        // Half the inputs have padded strides, so strides reach the device kernel too.
        Tensor x = trial % 2 ? Tensor::padded(dtype, shape, std::vector<int64_t>(shape.size(), 1)) : Tensor::dense(dtype, shape);
        test::fill_random(x, rng, {});
        const std::vector<int64_t> out_shape = infer_pool_shape(shape, a).output_shape;
        Tensor got = Tensor::dense(dtype, out_shape), expected = Tensor::dense(dtype, out_shape);
        const TensorView dx = upload(x), dy = upload(got);
        AvgPoolAttributes avg;
        static_cast<PoolAttributes &>(avg) = a;
        avg.pad_mode = AvgPadMode::include_pad;
        if (average) {
            avg_pool(dx, dy, avg);
            reference::avg_pool(x.view(), expected.view(), avg);
        } else if (trial % 4 < 2) {
            max_pool(dx, dy, a);
            reference::max_pool(x.view(), expected.view(), a, nullptr);
        } else {  // with indices, also in device memory
            a.axis = trial % 8 < 4 ? 0 : 2;
            const DType index_type = trial % 8 < 4 ? DType::i64 : DType::i32;
            Tensor got_indices = Tensor::dense(index_type, out_shape), expected_indices = got_indices;
            const TensorView di = upload(got_indices);
            max_pool(dx, dy, a, &di);
            const TensorView ei = expected_indices.view();
            reference::max_pool(x.view(), expected.view(), a, &ei);
            download(di, got_indices);
            EXPECT_TRUE(test::tensors_match(got_indices, expected_indices))
                << "max_pool indices " << dtype_name(dtype) << " " << shape_to_string(shape) << " " << test::describe(a);
        }
        download(dy, got);
        test::CompareOptions tolerance;
        tolerance.ulp_tol = average ? 4 : 0;
        EXPECT_TRUE(test::tensors_match(got, expected, tolerance))
            << (average ? "avg_pool " : "max_pool ") << dtype_name(dtype) << " " << shape_to_string(shape) << " "
            << test::describe(a);
    }
}

TEST_F(OpenClMemory, GlobalAveragePoolMatchesReference) {
    Rng rng(7);
    Tensor x = Tensor::dense(DType::f32, {2, 37, 7, 7});
    test::fill_random(x, rng, {});
    AvgPoolAttributes a;
    a.kernel = {7, 7};
    Tensor got = Tensor::dense(DType::f32, {2, 37, 1, 1}), expected = got;
    const TensorView dx = upload(x), dy = upload(got);
    avg_pool(dx, dy, a);
    reference::avg_pool(x.view(), expected.view(), a);
    download(dy, got);
    test::CompareOptions tolerance;
    tolerance.ulp_tol = 8;
    EXPECT_TRUE(test::tensors_match(got, expected, tolerance));
}

// Dyadic data (multiples of 1/4): every f32 sum is exact, so the result must equal the reference.
TEST_F(OpenClMemory, PreparedConvolutionMatchesReferenceRepeatedly) {
    Rng rng(11);
    struct Case {
        std::vector<int64_t> input, weights;
        int64_t group;
    };
    const Case cases[] = {{{1, 6, 13, 17}, {20, 6, 3, 3}, 1},
                          {{2, 8, 9, 11}, {8, 1, 3, 3}, 8},  // depthwise
                          {{1, 6, 30}, {9, 2, 5}, 3},
                          {{1, 4, 5, 6, 7}, {5, 4, 3, 3, 3}, 1}};
    for (const Case &c : cases) {
        ConvAttributes a;
        a.group = c.group;
        a.activation = Activation::relu;
        const std::size_t spatial = c.input.size() - 2;
        a.pads_begin.assign(spatial, 1);
        a.pads_end.assign(spatial, 1);
        a.strides.assign(spatial, 1);
        a.strides.back() = 2;
        Tensor w = Tensor::dense(DType::f32, c.weights), b = Tensor::dense(DType::f32, {c.weights[0]});
        test::fill_random(w, rng, {});
        test::fill_random(b, rng, {});
        const TensorView bias = b.view();
        const PreparedConvolution conv(w.view(), &bias, a);
        const std::vector<int64_t> out_shape = conv.infer_shape(c.input).output_shape;
        for (int run = 0; run < 2; run++) {  // the second run uses the weights kept on the device
            Tensor x = Tensor::dense(DType::f32, c.input);
            test::fill_random(x, rng, {});
            Tensor got = Tensor::dense(DType::f32, out_shape), expected = got;
            const TensorView dx = upload(x), dy = upload(got);
            conv.run(dx, dy);
            reference::convolution(x.view(), w.view(), &bias, expected.view(), a);
            download(dy, got);
            EXPECT_TRUE(test::tensors_match(got, expected)) << "input " << shape_to_string(c.input) << " weights "
                                                            << shape_to_string(c.weights) << " run " << run;
        }
    }
}

TEST_F(OpenClMemory, MixedPlacesAreAnError) {
    Tensor x = Tensor::dense(DType::f32, {1, 2, 8, 8}), y = Tensor::dense(DType::f32, {1, 2, 4, 4});
    MaxPoolAttributes a;
    a.kernel = {2, 2};
    a.strides = {2, 2};
    const TensorView dx = upload(x);
    EXPECT_THROW(
        {
            try {
                max_pool(dx, y.view(), a);
            } catch (const Error &e) {
                EXPECT_STREQ(e.what(),
                             "max_pool: input is in opencl memory but output is in host memory; all tensors of a call "
                             "must be in one place");
                throw;
            }
        },
        Error);
}

TEST_F(OpenClMemory, TypeWithoutGpuKernelIsAnErrorNotACpuFallback) {
    // PoCL has no f16: OpenCL has no f16 kernels, and the CPU cannot read device memory.
    Tensor x = Tensor::dense(DType::f16, {1, 2, 8, 8}), y = Tensor::dense(DType::f16, {1, 2, 4, 4});
    MaxPoolAttributes a;
    a.kernel = {2, 2};
    a.strides = {2, 2};
    const TensorView dx = upload(x), dy = upload(y);
    try {
        max_pool(dx, dy, a);
        FAIL() << "no error";
    } catch (const Error &e) {
        EXPECT_NE(std::string(e.what()).find("no opencl kernel max_pool_f16"), std::string::npos) << e.what();
    }
}

TEST_F(OpenClMemory, DeviceWeightsAreAnError) {
    Tensor w = Tensor::dense(DType::f32, {4, 2, 3, 3});
    const TensorView dw = upload(w);
    try {
        PreparedConvolution conv(dw, nullptr, ConvAttributes{});
        FAIL() << "no error";
    } catch (const Error &e) {
        EXPECT_STREQ(e.what(), "convolution: weights must be in host memory (they are packed on the CPU), got opencl memory");
    }
}

// CUDA kernels are built here but no CUDA device is present (no GPU in CI).
TEST(CudaMemory, WithoutADeviceIsAnError) {
    if (!built(Isa::cuda)) GTEST_SKIP() << "this build has no cuda kernels";
    try {
        (void)gpu_context(Isa::cuda);
        GTEST_SKIP() << "this machine has a CUDA device";
    } catch (const Error &) {
    }
    float x[16] = {}, y[4] = {};
    TensorView dx = TensorView::dense(DType::f32, {1, 1, 4, 4}, x), dy = TensorView::dense(DType::f32, {1, 1, 2, 2}, y);
    dx.memory = dy.memory = Memory::cuda;
    MaxPoolAttributes a;
    a.kernel = {2, 2};
    a.strides = {2, 2};
    try {
        max_pool(dx, dy, a);
        FAIL() << "no error";
    } catch (const Error &e) {
        EXPECT_STREQ(e.what(), "max_pool: the tensors are in cuda memory but no cuda device was found");
    }
}

}  // namespace
}  // namespace poolconv
