// The smallest real use of poolconv from another project: infer the output shape, allocate,
// run MaxPool with indices, and check one value by hand. Exits non-zero if anything is off.
#include <poolconv/poolconv.h>

#include <cstdio>
#include <vector>

int main() {
    // One 4x4 plane: 0, 1, ..., 15.
    std::vector<float> x(16);
    for (int i = 0; i < 16; i++) x[i] = static_cast<float>(i);
    const poolconv::TensorView input = poolconv::TensorView::dense(poolconv::DType::f32, {1, 1, 4, 4}, x.data());

    poolconv::MaxPoolAttributes attributes;
    attributes.kernel = {2, 2};
    attributes.strides = {2, 2};
    const poolconv::PoolGeometry geometry = poolconv::infer_pool_shape(input.shape, attributes);

    std::vector<float> y(4);
    std::vector<int64_t> indices(4);
    const auto output = poolconv::TensorView::dense(poolconv::DType::f32, geometry.output_shape, y.data());
    const auto index_view = poolconv::TensorView::dense(poolconv::DType::i64, geometry.output_shape, indices.data());
    try {
        poolconv::max_pool(input, output, attributes, &index_view);
    } catch (const poolconv::Error &e) {
        std::fprintf(stderr, "consumer: %s\n", e.what());
        return 1;
    }
    // The 2x2 windows' maxima are their bottom-right elements: 5, 7, 13, 15.
    const bool ok = y[0] == 5 && y[1] == 7 && y[2] == 13 && y[3] == 15 && indices[3] == 15;
    std::printf("consumer: maxpool %s -> %s: %g %g %g %g (%s)\n", poolconv::shape_to_string(input.shape).c_str(),
                poolconv::shape_to_string(geometry.output_shape).c_str(), y[0], y[1], y[2], y[3], ok ? "ok" : "WRONG");
    return ok ? 0 : 1;
}
