// Concurrent use: worker threads share one PreparedConvolution and call max_pool (with and without
// indices), avg_pool and convolution with mixed shapes and types, while other threads keep calling
// set_num_threads and set_isa. Every result is checked against the reference. Run under
// ThreadSanitizer in CI (scripts/run-tests.sh: build-tsan/), where it also proves the runtime's own
// state (settings, kernel table, packed weights, the thread pool's restarts) race-free; the plain
// builds run it too.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "reference/reference_convolution.h"
#include "tests/test_util.h"

namespace poolconv {
namespace {

using test::Rng;
using test::Tensor;
using Shape = std::vector<int64_t>;

// The first failure (in full) and a count.
class Failures {
public:
    void add(const std::string &what) {
        const std::lock_guard<std::mutex> lock(mutex_);
        if (count_++ == 0) first_ = what;
    }
    int count() const { return count_; }
    const std::string &first() const { return first_; }

private:
    std::mutex mutex_;
    std::atomic<int> count_{0};
    std::string first_;
};

// A small random pooling geometry: rank 3-5, window 1-3, stride 1-2, pads below the window.
PoolAttributes random_window(Rng &rng, std::size_t spatial) {
    PoolAttributes a;
    for (std::size_t i = 0; i < spatial; i++) {
        const int k = test::uniform(rng, 1, 3);
        a.kernel.push_back(k);
        a.strides.push_back(test::uniform(rng, 1, 2));
        a.pads_begin.push_back(test::uniform(rng, 0, k - 1));
        a.pads_end.push_back(test::uniform(rng, 0, k - 1));
    }
    a.rounding = static_cast<Rounding>(test::uniform(rng, 0, 2));
    return a;
}

Shape random_shape(Rng &rng, std::size_t spatial) {
    Shape s = {test::uniform(rng, 1, 2), test::uniform(rng, 1, 5)};
    for (std::size_t i = 0; i < spatial; i++) s.push_back(test::uniform(rng, 3, spatial == 3 ? 6 : 14));
    return s;
}

void check(Failures &failures, const Tensor &got, const Tensor &want, const test::CompareOptions &o, const std::string &what) {
    const test::CompareResult r = test::compare_tensors(got, want, o);
    if (!r.ok(o, want.element_count())) failures.add(what + ": " + std::to_string(r.wrong) + " wrong" + r.log);
}

void pooling_call(Rng &rng, Failures &failures) {
    const std::size_t spatial = static_cast<std::size_t>(test::uniform(rng, 1, 3));
    const Shape input = random_shape(rng, spatial);
    const PoolAttributes window = random_window(rng, spatial);
    const Shape output = infer_pool_shape(input, window).output_shape;
    const bool max = test::chance(rng, 0.6);
    const DType types[] = {DType::f32, DType::f16, DType::bf16, DType::f64, DType::i8, DType::u8};
    const DType dtype = types[test::uniform(rng, 0, max ? 5 : 3)];
    Tensor x = Tensor::dense(dtype, input), want = Tensor::dense(dtype, output), got = Tensor::dense(dtype, output);
    test::fill_random(x, rng, {});  // dyadic values: exact averages in every type
    const std::string what = std::string(max ? "max_pool " : "avg_pool ") + dtype_name(dtype) + " " +
                             shape_to_string(input) + " " + test::describe(window);
    if (max) {
        MaxPoolAttributes a;
        static_cast<PoolAttributes &>(a) = window;
        a.axis = test::uniform(rng, 0, 2);
        Tensor want_idx = Tensor::dense(DType::i64, output), got_idx = Tensor::dense(DType::i64, output);
        const TensorView want_iv = want_idx.view(), got_iv = got_idx.view();
        const bool indices = test::chance(rng, 0.5);
        reference::max_pool(x.view(), want.view(), a, indices ? &want_iv : nullptr);
        max_pool(x.view(), got.view(), a, indices ? &got_iv : nullptr);
        if (indices) check(failures, got_idx, want_idx, {}, what + " indices");
        check(failures, got, want, {}, what);
    } else {
        AvgPoolAttributes a;
        static_cast<PoolAttributes &>(a) = window;
        a.pad_mode = static_cast<AvgPadMode>(test::uniform(rng, 0, 2));
        reference::avg_pool(x.view(), want.view(), a);
        avg_pool(x.view(), got.view(), a);
        test::CompareOptions o;
        o.ulp_tol = 1;
        check(failures, got, want, o, what);
    }
}

// One convolution every worker shares: f32, 2 groups, 3x3, bias, ReLU (row-pair, general and
// pointwise-free shapes alike).
struct SharedConvolution {
    Tensor weights = Tensor::dense(DType::f32, {12, 3, 3, 3});
    Tensor bias = Tensor::dense(DType::f32, {12});
    ConvAttributes attributes;
    std::unique_ptr<PreparedConvolution> prepared;

    explicit SharedConvolution(Rng &rng) {
        test::fill_random(weights, rng, {});
        test::fill_random(bias, rng, {});
        attributes.group = 2;
        attributes.pads_begin = {1, 1};
        attributes.pads_end = {1, 0};
        attributes.activation = Activation::relu;
        const TensorView b = bias.view();
        prepared = std::make_unique<PreparedConvolution>(weights.view(), &b, attributes);
    }
};

void convolution_call(Rng &rng, Failures &failures, const SharedConvolution &shared) {
    if (test::chance(rng, 0.5)) {
        const Shape input = {test::uniform(rng, 1, 2), 6, test::uniform(rng, 2, 12), test::uniform(rng, 2, 20)};
        const Shape output = shared.prepared->infer_shape(input).output_shape;
        Tensor x = Tensor::dense(DType::f32, input), want = Tensor::dense(DType::f32, output);
        Tensor got = Tensor::dense(DType::f32, output);
        test::fill_random(x, rng, {});
        const TensorView b = shared.bias.view();
        reference::convolution(x.view(), shared.weights.view(), &b, want.view(), shared.attributes);
        shared.prepared->run(x.view(), got.view());
        check(failures, got, want, {}, "shared convolution " + shape_to_string(input));
        return;
    }
    // A convolution of its own, in any float type, depthwise now and then.
    const DType types[] = {DType::f32, DType::f16, DType::bf16, DType::f64};
    const DType dtype = types[test::uniform(rng, 0, 3)];
    const bool depthwise = test::chance(rng, 0.3);
    const int64_t channels = test::uniform(rng, 1, 4);
    const Shape input = {1, channels, test::uniform(rng, 3, 10), test::uniform(rng, 3, 17)};
    const Shape weights_shape = {depthwise ? channels : test::uniform(rng, 1, 9), depthwise ? 1 : channels,
                                 test::uniform(rng, 1, 3), test::uniform(rng, 1, 3)};
    ConvAttributes a;
    a.group = depthwise ? channels : 1;
    a.auto_pad = AutoPad::same_upper;
    a.strides = {test::uniform(rng, 1, 2), test::uniform(rng, 1, 2)};
    const Shape output = infer_conv_shape(input, weights_shape, a).output_shape;
    Tensor x = Tensor::dense(dtype, input), w = Tensor::dense(dtype, weights_shape);
    Tensor want = Tensor::dense(dtype, output), got = Tensor::dense(dtype, output);
    test::fill_random(x, rng, {});
    test::fill_random(w, rng, {});
    reference::convolution(x.view(), w.view(), nullptr, want.view(), a);
    convolution(x.view(), w.view(), nullptr, got.view(), a);
    check(failures, got, want, {}, std::string("convolution ") + dtype_name(dtype) + " " + shape_to_string(input) +
                                       " * " + shape_to_string(weights_shape));
}

TEST(ConcurrencyStress, OperatorsWhileSettingsChange) {
    constexpr int kWorkers = 6, kCallsPerWorker = 400;
    Rng setup_rng(9001);
    const SharedConvolution shared(setup_rng);
    Failures failures;
    std::atomic<int> workers_left{kWorkers};
    std::atomic<long> setting_changes{0};

    std::vector<std::thread> threads;
    for (int t = 0; t < kWorkers; t++) {
        threads.emplace_back([&, t] {
            Rng rng(100 + t);
            for (int i = 0; i < kCallsPerWorker; i++) {
                try {
                    if (test::chance(rng, 0.5)) {
                        pooling_call(rng, failures);
                    } else {
                        convolution_call(rng, failures, shared);
                    }
                } catch (const std::exception &e) {
                    failures.add(std::string("threw: ") + e.what());
                }
            }
            workers_left--;
        });
    }
    // Settings change all the while: thread counts 1-3 and the default; every path and `best`.
    std::vector<Isa> isas = architecture_isas();
    isas.push_back(Isa::best);
    for (int t = 0; t < 2; t++) {
        threads.emplace_back([&, t] {
            Rng rng(200 + t);
            while (workers_left > 0) {
                try {
                    if (t == 0) {
                        set_num_threads(test::uniform(rng, 0, 3));
                    } else {
                        set_isa(isas[static_cast<std::size_t>(test::uniform(rng, 0, static_cast<int>(isas.size()) - 1))]);
                        (void)active_isa();
                        (void)num_threads();
                    }
                    setting_changes++;
                } catch (const std::exception &e) {
                    failures.add(std::string("a setting threw: ") + e.what());
                }
                std::this_thread::sleep_for(std::chrono::microseconds(200));
            }
        });
    }
    for (std::thread &t : threads) t.join();
    set_isa(Isa::best);
    set_num_threads(0);
    EXPECT_EQ(failures.count(), 0) << "first failure: " << failures.first();
    EXPECT_GT(setting_changes.load(), 10) << "the settings hardly changed while the operators ran";
}

}  // namespace
}  // namespace poolconv
