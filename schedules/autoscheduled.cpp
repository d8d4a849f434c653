#include "schedules/autoscheduled.h"

// The results are generated code: `$` in names (GCC accepts it) and variables some do not use.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic"
#pragma GCC diagnostic ignored "-Wunused-variable"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wshadow"
#include "checked_in_schedules.h"  // generated from generators/variants.cmake
#pragma GCC diagnostic pop

namespace poolconv::schedules {

namespace {

struct CheckedInSchedule {
    ScheduleAuthor author;
    const char *variant;
    void (*apply)(Halide::Pipeline, Halide::Target);
};

#define POOLCONV_CHECKED_IN_ENTRY(author, variant) \
    CheckedInSchedule{ScheduleAuthor::author, #variant, &apply_schedule_##author##_##variant},
const CheckedInSchedule kSchedules[] = {POOLCONV_FOR_EACH_CHECKED_IN_SCHEDULE(POOLCONV_CHECKED_IN_ENTRY)};
#undef POOLCONV_CHECKED_IN_ENTRY

}  // namespace

const std::map<std::string, ScheduleAuthor> &schedule_author_names() {
    static const std::map<std::string, ScheduleAuthor> names = {{"poolconv", ScheduleAuthor::poolconv},
                                                               {"adams2019", ScheduleAuthor::adams2019},
                                                               {"mullapudi2016", ScheduleAuthor::mullapudi2016}};
    return names;
}

void apply_autoscheduled(ScheduleAuthor author, const std::string &variant, const Halide::Pipeline &pipeline,
                         const Halide::Target &target) {
    for (const CheckedInSchedule &s : kSchedules) {
        if (s.author == author && variant == s.variant) return s.apply(pipeline, target);
    }
    std::string author_name = "?";
    for (const auto &[name, a] : schedule_author_names()) {
        if (a == author) author_name = name;
    }
    throw Halide::CompileError("no checked-in " + author_name + " schedule for " + variant +
                               " in schedules/autoscheduled/ (tools/autoschedule.sh writes them)");
}

}  // namespace poolconv::schedules
