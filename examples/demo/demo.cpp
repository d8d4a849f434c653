// The main job: the `poolconv` CLI pools a realistic activation tensor, and the result is checked
// against the plain C++ reference. Prints shapes, agreement and timing.
//
//   poolconv_demo <path to the poolconv CLI> <work directory>
//
// The tensor is what a ResNet-50 stem hands to its first MaxPool: 1x64x112x112 f32, post-ReLU
// (about half zeros, so ties are everywhere and the first-in-scan-order rule is exercised).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "cli/npy.h"
#include "poolconv/poolconv.h"
#include "reference/reference_pooling.h"

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

// Runs a shell command, returns its exit status and wall time.
int run_timed(const std::string &command, double *seconds) {
    const auto start = Clock::now();
    const int status = std::system(command.c_str());
    *seconds = seconds_since(start);
    return status;
}

template<typename T>
const T *data_of(const poolconv::npy::Array &a) {
    return reinterpret_cast<const T *>(a.bytes.data());
}

}  // namespace

int main(int argc, char **argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: poolconv_demo <poolconv CLI> <work dir>\n");
        return 2;
    }
    const std::string cli = argv[1], dir = argv[2];
    const std::vector<int64_t> shape = {1, 64, 112, 112};

    // A post-ReLU activation: max(0, N(0, 1)), values rounded to 1/64 so exact ties occur.
    std::vector<float> x(1 * 64 * 112 * 112);
    std::mt19937 rng(2024);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    for (float &v : x) v = std::max(0.0f, std::round(normal(rng) * 64.0f) / 64.0f);
    const std::string x_path = dir + "/activation.npy";
    poolconv::npy::save(x_path, poolconv::DType::f32, shape, x.data());
    std::printf("input   %s f32 (ResNet-50 stem activation, post-ReLU) -> %s\n",
                poolconv::shape_to_string(shape).c_str(), x_path.c_str());
    std::printf("isa     %s, %d threads\n", poolconv::isa_name(poolconv::active_isa()), poolconv::num_threads());

    int failures = 0;
    const poolconv::TensorView input = poolconv::TensorView::dense(poolconv::DType::f32, shape, x.data());

    // 1. MaxPool 3x3 stride 2 pad 1 with int64 indices, through the CLI.
    {
        double t = 0;
        const std::string cmd = "'" + cli + "' maxpool -i '" + x_path + "' -o '" + dir + "/maxpool.npy' --indices '" +
                                dir + "/maxpool_indices.npy' --kernel 3,3 --strides 2,2 --pads-begin 1,1 --pads-end 1,1";
        if (run_timed(cmd, &t) != 0) {
            std::fprintf(stderr, "demo: the CLI failed: %s\n", cmd.c_str());
            return 1;
        }
        poolconv::npy::Array y = poolconv::npy::load(dir + "/maxpool.npy");
        poolconv::npy::Array idx = poolconv::npy::load(dir + "/maxpool_indices.npy");

        poolconv::MaxPoolAttributes a;
        a.kernel = {3, 3}, a.strides = {2, 2}, a.pads_begin = {1, 1}, a.pads_end = {1, 1};
        const auto g = poolconv::infer_pool_shape(shape, a);
        std::vector<float> ref(y.bytes.size() / 4);
        std::vector<int64_t> ref_idx(ref.size());
        const auto ref_idx_view = poolconv::TensorView::dense(poolconv::DType::i64, g.output_shape, ref_idx.data());
        poolconv::reference::max_pool(input, poolconv::TensorView::dense(poolconv::DType::f32, g.output_shape, ref.data()), a,
                                      &ref_idx_view);
        size_t value_mismatch = 0, index_mismatch = 0;
        for (size_t i = 0; i < ref.size(); i++) {
            value_mismatch += data_of<float>(y)[i] != ref[i];
            index_mismatch += data_of<int64_t>(idx)[i] != ref_idx[i];
        }
        const bool ok = y.shape == g.output_shape && value_mismatch == 0 && index_mismatch == 0;
        failures += !ok;
        std::printf("maxpool k3 s2 p1 + i64 indices: %s -> %s, CLI %.1f ms end to end; vs reference: %zu/%zu values, "
                    "%zu indices differ: %s\n",
                    poolconv::shape_to_string(shape).c_str(), poolconv::shape_to_string(y.shape).c_str(), t * 1e3,
                    value_mismatch, ref.size(), index_mismatch, ok ? "OK" : "MISMATCH");
    }

    // 2. AvgPool 3x3 stride 1 pad 1 (exclude pad), through the CLI.
    {
        double t = 0;
        const std::string cmd = "'" + cli + "' avgpool -i '" + x_path + "' -o '" + dir +
                                "/avgpool.npy' --kernel 3,3 --pads-begin 1,1 --pads-end 1,1 --exclude-pad";
        if (run_timed(cmd, &t) != 0) {
            std::fprintf(stderr, "demo: the CLI failed: %s\n", cmd.c_str());
            return 1;
        }
        poolconv::npy::Array y = poolconv::npy::load(dir + "/avgpool.npy");
        poolconv::AvgPoolAttributes a;
        a.kernel = {3, 3}, a.pads_begin = {1, 1}, a.pads_end = {1, 1};
        const auto g = poolconv::infer_pool_shape(shape, a);
        std::vector<float> ref(y.bytes.size() / 4);
        poolconv::reference::avg_pool(input, poolconv::TensorView::dense(poolconv::DType::f32, g.output_shape, ref.data()), a);
        double worst = 0;
        for (size_t i = 0; i < ref.size(); i++) {
            worst = std::max(worst, std::fabs(double(data_of<float>(y)[i]) - ref[i]) / std::max(1.0, std::fabs(double(ref[i]))));
        }
        const bool ok = y.shape == g.output_shape && worst <= 1e-6;
        failures += !ok;
        std::printf("avgpool k3 s1 p1 exclude-pad:   %s -> %s, CLI %.1f ms end to end; vs reference: max rel. error %.1e: %s\n",
                    poolconv::shape_to_string(shape).c_str(), poolconv::shape_to_string(y.shape).c_str(), t * 1e3,
                    worst, ok ? "OK" : "MISMATCH");
    }

    // 3. Kernel time alone, in process (median of 50 calls), for the same MaxPool.
    {
        poolconv::MaxPoolAttributes a;
        a.kernel = {3, 3}, a.strides = {2, 2}, a.pads_begin = {1, 1}, a.pads_end = {1, 1};
        const auto g = poolconv::infer_pool_shape(shape, a);
        std::vector<float> y(64 * 56 * 56);
        const auto out = poolconv::TensorView::dense(poolconv::DType::f32, g.output_shape, y.data());
        std::vector<double> times;
        for (int i = 0; i < 50; i++) {
            const auto start = Clock::now();
            poolconv::max_pool(input, out, a);
            times.push_back(seconds_since(start));
        }
        std::sort(times.begin(), times.end());
        const double median = times[times.size() / 2];
        const double bytes = static_cast<double>(x.size() + y.size()) * 4.0;
        std::printf("maxpool kernel alone (API, median of 50): %.1f us, %.1f GB/s\n", median * 1e6, bytes / median / 1e9);
    }

    std::printf(failures ? "demo: FAILED\n" : "demo: all results match the reference\n");
    return failures ? 1 : 0;
}
