#include "tune/retraining.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <random>

namespace poolconv::tune {

namespace {

// Runs a shell command line; throws Error with its output when it fails.
void run_command(const std::string &command, const std::string &what) {
    const std::string line = command + " 2>&1";
    FILE *pipe = popen(line.c_str(), "r");
    if (!pipe) throw Error("poolconv-tune: cannot run " + what);
    std::string output;
    char buffer[4096];
    while (std::fgets(buffer, sizeof buffer, pipe)) output += buffer;
    if (pclose(pipe) != 0) throw Error("poolconv-tune: " + what + " failed:\n" + output);
}

std::string shell_quoted(const std::filesystem::path &p) { return "'" + p.string() + "'"; }

uint32_t read_u32(const std::string &bytes, std::size_t at) {
    uint32_t v = 0;
    for (int b = 3; b >= 0; b--) v = (v << 8) | static_cast<unsigned char>(bytes[at + static_cast<std::size_t>(b)]);
    return v;
}

// Halide ships Adams2019's default weights only inside its plugin, as the bytes of a .weights
// file (signature "hwf1", two feature versions, 6 buffers of dimension count, extents, floats);
// the retraining tool needs them as a file to start from. Finds and writes them; false if the
// plugin holds no such block.
bool extract_baseline_weights(const std::string &plugin, const std::filesystem::path &out) {
    std::ifstream in(plugin, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::string signature("\x31\x66\x77\x68", 4);  // 0x68776631, little-endian
    for (std::size_t at = bytes.find(signature); at != std::string::npos; at = bytes.find(signature, at + 1)) {
        std::size_t end = at + 16;
        if (end > bytes.size() || read_u32(bytes, at + 12) != 6) continue;
        bool complete = true;
        for (int buffer = 0; buffer < 6 && complete; buffer++) {
            if (end + 4 > bytes.size()) { complete = false; break; }
            const uint32_t dims = read_u32(bytes, end);
            end += 4;
            uint64_t elements = 1;
            for (uint32_t d = 0; d < dims && complete; d++) {
                if (dims > 8 || end + 4 > bytes.size()) { complete = false; break; }
                elements *= read_u32(bytes, end);
                end += 4;
            }
            end += static_cast<std::size_t>(elements * 4);
            complete = complete && end <= bytes.size();
        }
        if (!complete) continue;
        std::ofstream weights(out, std::ios::binary);
        weights.write(bytes.data() + at, static_cast<std::streamsize>(end - at));
        return static_cast<bool>(weights.flush());
    }
    return false;
}

}  // namespace

Retraining::Retraining() {
    std::random_device seed;
    dir_ = std::filesystem::temp_directory_path() / ("poolconv-tune-" + std::to_string(seed()));
    std::filesystem::create_directories(dir_ / "samples");
    if (!extract_baseline_weights(POOLCONV_TUNE_ADAMS2019_PLUGIN, dir_ / "baseline.weights")) {
        throw Error(std::string("poolconv-tune: no default weights found in ") + POOLCONV_TUNE_ADAMS2019_PLUGIN);
    }
}

Retraining::~Retraining() {
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
}

bool Retraining::available() {
    return std::filesystem::exists(POOLCONV_TUNE_RETRAIN_TOOL) && std::filesystem::exists(POOLCONV_TUNE_FEATURIZATION_TOOL);
}

Candidate Retraining::sample_candidate(int index, int threads) {
    // Greedy search that keeps each state with probability 1 - 1/4 per step (random_dropout is the
    // percentage kept), as Halide's autotuning loop samples.
    return {"Adams2019 sample " + std::to_string(index),
            {},
            {"Adams2019",
             {{"parallelism", std::to_string(std::max(threads, 1))},
              {"beam_size", "1"},
              {"random_dropout", "75"},
              {"random_dropout_seed", std::to_string(1000 + index)}}}};
}

void Retraining::add_sample(const BuiltKernel &kernel, int pipeline_id, double us) {
    const std::vector<uint8_t> &features = kernel.featurization();
    if (features.empty()) return;
    const std::filesystem::path stem = dir_ / "samples" / std::to_string(samples_);
    {
        std::ofstream f(stem.string() + ".featurization", std::ios::binary);
        f.write(reinterpret_cast<const char *>(features.data()), static_cast<std::streamsize>(features.size()));
        if (!f.flush()) throw Error("poolconv-tune: cannot write " + stem.string() + ".featurization");
    }
    // Runtimes in milliseconds, as Halide's benchmarks report them.
    run_command(std::string(POOLCONV_TUNE_FEATURIZATION_TOOL) + " " + shell_quoted(stem.string() + ".featurization") + " " +
                    std::to_string(us / 1000.0) + " " + std::to_string(pipeline_id) + " " + std::to_string(samples_) +
                    " " + shell_quoted(stem.string() + ".sample"),
                "featurization_to_sample");
    std::filesystem::remove(stem.string() + ".featurization");
    samples_++;
}

std::vector<Candidate> Retraining::retrain(int threads) {
    const std::filesystem::path weights = dir_ / ("retrained-" + std::to_string(++generation_) + ".weights");
    std::ofstream list(dir_ / "samples.txt");
    for (const auto &entry : std::filesystem::directory_iterator(dir_ / "samples")) list << entry.path().string() << "\n";
    list.close();
    // Halide's autotune_loop.sh retrains with these settings (its weights start from the baked-in ones).
    run_command(std::string(POOLCONV_TUNE_RETRAIN_TOOL) + " --epochs=" + std::to_string(std::max(samples_ * 4, 50)) +
                    " --rates=0.0001 --num_cores=32 --initial_weights=" + shell_quoted(dir_ / "baseline.weights") + " --weights_out=" + shell_quoted(weights) +
                    " --best_benchmark=" + shell_quoted(dir_ / "best.txt") + " --best_schedule=" + shell_quoted(dir_ / "best.schedule.h") +
                    " < " + shell_quoted(dir_ / "samples.txt"),
                "adams2019_retrain_cost_model");
    const std::string parallelism = std::to_string(std::max(threads, 1));
    return {{"Adams2019 retrained greedy", {}, {"Adams2019", {{"parallelism", parallelism}, {"beam_size", "1"}, {"weights_path", weights.string()}}}},
            {"Adams2019 retrained beam 32",
             {},
             {"Adams2019", {{"parallelism", parallelism}, {"beam_size", "32"}, {"weights_path", weights.string()}}},
             60}};
}

}  // namespace poolconv::tune
