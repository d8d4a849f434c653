// ResNet-50's stem and first bottleneck block on a random image, through the tuned library
// (resnet50.h, written by poolconv-tune) and through the built-in kernels: the two must agree,
// and the tuned one should be faster.
//
//   conv1 (7x7/2, ReLU) -> maxpool (3x3/2) -> layer1_0: conv1 (1x1, ReLU) -> conv2 (3x3, ReLU)
//   -> conv3 (1x1) + downsample (1x1) of the block input, then ReLU
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "resnet50.h"

namespace {

struct Tensor {
    std::vector<float> data;
    poolconv::TensorView view;
    explicit Tensor(std::vector<int64_t> shape) {
        int64_t n = 1;
        for (int64_t d : shape) n *= d;
        data.assign(static_cast<std::size_t>(n), 0.0f);
        view = poolconv::TensorView::dense(poolconv::DType::f32, std::move(shape), data.data());
    }
};

Tensor random_tensor(std::vector<int64_t> shape, float scale, std::mt19937 &rng) {
    Tensor t(std::move(shape));
    std::uniform_real_distribution<float> u(-scale, scale);
    for (float &v : t.data) v = u(rng);
    return t;
}

}  // namespace

int main() {
    // The library was tuned at 1 thread (poolconv_add_tuned_library's default THREADS).
    poolconv::set_num_threads(1);
    std::mt19937 rng(1);
    Tensor image = random_tensor({1, 3, 224, 224}, 1.0f, rng);
    // Weights scaled like He initialization, so activations stay near 1 through the block.
    auto weights = [&](std::vector<int64_t> shape) {
        const float fan_in = static_cast<float>(shape[1] * shape[2] * shape[3]);
        return random_tensor(std::move(shape), std::sqrt(6.0f / fan_in), rng);
    };
    Tensor w_stem = weights({64, 3, 7, 7}), w1 = weights({64, 64, 1, 1}), w2 = weights({64, 64, 3, 3});
    Tensor w3 = weights({256, 64, 1, 1}), w_down = weights({256, 64, 1, 1});

    const resnet50::conv1 stem(w_stem.view, nullptr);
    const resnet50::layer1_0_conv1 conv_a(w1.view, nullptr);
    const resnet50::layer1_0_conv2 conv_b(w2.view, nullptr);
    const resnet50::layer1_0_conv3 conv_c(w3.view, nullptr);
    const resnet50::layer1_0_downsample down(w_down.view, nullptr);
    Tensor s({1, 64, 112, 112}), p({1, 64, 56, 56}), a({1, 64, 56, 56}), b({1, 64, 56, 56});
    Tensor c({1, 256, 56, 56}), d({1, 256, 56, 56});
    auto tuned = [&] {
        stem.run(image.view, s.view);
        resnet50::maxpool(s.view, p.view);
        conv_a.run(p.view, a.view);
        conv_b.run(a.view, b.view);
        conv_c.run(b.view, c.view);
        down.run(p.view, d.view);
        for (std::size_t i = 0; i < c.data.size(); i++) c.data[i] = std::max(c.data[i] + d.data[i], 0.0f);
    };

    // The same with the built-in kernels: the library's attributes, the plain API.
    const poolconv::PreparedConvolution g_stem(w_stem.view, nullptr, resnet50::conv1_attributes());
    const poolconv::PreparedConvolution g_a(w1.view, nullptr, resnet50::layer1_0_conv1_attributes());
    const poolconv::PreparedConvolution g_b(w2.view, nullptr, resnet50::layer1_0_conv2_attributes());
    const poolconv::PreparedConvolution g_c(w3.view, nullptr, resnet50::layer1_0_conv3_attributes());
    const poolconv::PreparedConvolution g_down(w_down.view, nullptr, resnet50::layer1_0_downsample_attributes());
    Tensor gs({1, 64, 112, 112}), gp({1, 64, 56, 56}), ga({1, 64, 56, 56}), gb({1, 64, 56, 56});
    Tensor gc({1, 256, 56, 56}), gd({1, 256, 56, 56});
    auto generic = [&] {
        g_stem.run(image.view, gs.view);
        poolconv::max_pool(gs.view, gp.view, resnet50::maxpool_attributes());
        g_a.run(gp.view, ga.view);
        g_b.run(ga.view, gb.view);
        g_c.run(gb.view, gc.view);
        g_down.run(gp.view, gd.view);
        for (std::size_t i = 0; i < gc.data.size(); i++) gc.data[i] = std::max(gc.data[i] + gd.data[i], 0.0f);
    };

    auto median_ms = [](auto &&run) {
        std::vector<double> ms;
        for (int i = 0; i < 15; i++) {
            const auto start = std::chrono::steady_clock::now();
            run();
            ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
        }
        std::sort(ms.begin(), ms.end());
        return ms[ms.size() / 2];
    };
    const double tuned_ms = median_ms(tuned), generic_ms = median_ms(generic);

    double worst = 0, largest = 0;
    for (std::size_t i = 0; i < c.data.size(); i++) {
        worst = std::max(worst, static_cast<double>(std::fabs(c.data[i] - gc.data[i])));
        largest = std::max(largest, static_cast<double>(std::fabs(gc.data[i])));
    }
    std::printf("ResNet-50 stem + layer1_0, 1 thread:\n"
                "  tuned %.3f ms, built-in %.3f ms (ratio %.2f); largest difference %.3g of values up to %.3g\n",
                tuned_ms, generic_ms, tuned_ms / generic_ms, worst, largest);
    if (!(worst <= 1e-4 * std::max(largest, 1.0))) {
        std::printf("FAILED: the tuned and built-in kernels disagree\n");
        return 1;
    }
    return 0;
}
