// Keeps benchmark names exactly as registered ("P1/poolconv/2t").
//
// Google Benchmark appends "/real_time" to the name of every benchmark that uses UseRealTime()
// (and "/min_time:..." etc. for per-benchmark settings). We want real time *and* the plain names,
// so the reporters we hand to RunSpecifiedBenchmarks clear those name parts and forward
// everything else to the stock console / JSON / CSV reporter chosen by the usual flags
// (--benchmark_format, --benchmark_out, --benchmark_out_format, --benchmark_color,
// --benchmark_counters_tabular), which we read from argv before benchmark::Initialize.
#pragma once

#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace poolconv_bench {

class ExactNamesReporter final : public benchmark::BenchmarkReporter {
public:
    explicit ExactNamesReporter(std::unique_ptr<benchmark::BenchmarkReporter> inner) : inner_(std::move(inner)) {}

    bool ReportContext(const Context &context) override {
        forward_streams();
        return inner_->ReportContext(context);
    }
    void ReportRuns(const std::vector<Run> &runs) override {
        forward_streams();
        std::vector<Run> renamed = runs;
        for (Run &run : renamed) {
            run.run_name.min_time.clear();
            run.run_name.min_warmup_time.clear();
            run.run_name.time_type.clear();
        }
        inner_->ReportRuns(renamed);
    }
    void Finalize() override {
        forward_streams();
        inner_->Finalize();
    }

private:
    // RunSpecifiedBenchmarks sets the streams on the reporter it is given, i.e. on us.
    void forward_streams() {
        inner_->SetOutputStream(&GetOutputStream());
        inner_->SetErrorStream(&GetErrorStream());
    }
    std::unique_ptr<benchmark::BenchmarkReporter> inner_;
};

// The value of --NAME=VALUE or -NAME=VALUE in argv, or `fallback`.
inline std::string flag_value(int argc, char **argv, const char *name, const std::string &fallback) {
    const std::string a = std::string("--") + name + "=", b = std::string("-") + name + "=";
    std::string value = fallback;  // the last occurrence wins, as in Google Benchmark
    for (int i = 1; i < argc; i++) {
        if (std::strncmp(argv[i], a.c_str(), a.size()) == 0) value = argv[i] + a.size();
        else if (std::strncmp(argv[i], b.c_str(), b.size()) == 0) value = argv[i] + b.size();
    }
    return value;
}

inline bool flag_is_true(const std::string &v) {
    return v == "1" || v == "true" || v == "TRUE" || v == "True" || v == "yes" || v == "y" || v == "t";
}

// A stock reporter for `format` ("console", "json", "csv"); console output options as the flags ask.
inline std::unique_ptr<benchmark::BenchmarkReporter> make_stock_reporter(const std::string &format, bool for_file,
                                                                          int argc, char **argv) {
    if (format == "json") return std::make_unique<benchmark::JSONReporter>();
    if (format == "csv") {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
        return std::make_unique<benchmark::CSVReporter>();
#pragma GCC diagnostic pop
    }
    int options = benchmark::ConsoleReporter::OO_None;
    if (!for_file) {
        const std::string color = flag_value(argc, argv, "benchmark_color", "auto");
        const bool tty = isatty(fileno(stdout)) != 0;
        if (color == "auto" ? tty : flag_is_true(color)) options |= benchmark::ConsoleReporter::OO_Color;
    }
    if (flag_is_true(flag_value(argc, argv, "benchmark_counters_tabular", "false"))) {
        options |= benchmark::ConsoleReporter::OO_Tabular;
    }
    return std::make_unique<benchmark::ConsoleReporter>(static_cast<benchmark::ConsoleReporter::OutputOptions>(options));
}

// Display and file reporters for RunSpecifiedBenchmarks, from the command line (call before
// benchmark::Initialize, which removes the flags it knows). `file` stays null without --benchmark_out.
struct ExactNamesReporters {
    std::unique_ptr<benchmark::BenchmarkReporter> display, file;

    ExactNamesReporters(int argc, char **argv) {
        const std::string format = flag_value(argc, argv, "benchmark_format", "console");
        if (format == "console" || format == "json" || format == "csv") {
            display = std::make_unique<ExactNamesReporter>(make_stock_reporter(format, false, argc, argv));
        }  // else: leave it to Google Benchmark, which reports the bad flag
        if (!flag_value(argc, argv, "benchmark_out", "").empty()) {
            const std::string out_format = flag_value(argc, argv, "benchmark_out_format", "json");
            if (out_format == "console" || out_format == "json" || out_format == "csv") {
                file = std::make_unique<ExactNamesReporter>(make_stock_reporter(out_format, true, argc, argv));
            }
        }
    }
};

}  // namespace poolconv_bench
