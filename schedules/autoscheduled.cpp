#include "schedules/autoscheduled.h"

// The results are generated code: `$` in names (GCC accepts it) and variables some do not use.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic"
#pragma GCC diagnostic ignored "-Wunused-variable"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wshadow"
#include "schedules/autoscheduled/adams2019/max_pool.schedule.h"
#include "schedules/autoscheduled/adams2019/max_pool_with_indices.schedule.h"
#include "schedules/autoscheduled/adams2019/avg_pool.schedule.h"
#include "schedules/autoscheduled/adams2019/avg_pool_global.schedule.h"
#include "schedules/autoscheduled/adams2019/convolution.schedule.h"
#include "schedules/autoscheduled/adams2019/convolution_pointwise.schedule.h"
#include "schedules/autoscheduled/adams2019/convolution_depthwise.schedule.h"
#include "schedules/autoscheduled/adams2019/convolution_depthwise_1d.schedule.h"
#include "schedules/autoscheduled/mullapudi2016/max_pool.schedule.h"
#include "schedules/autoscheduled/mullapudi2016/max_pool_with_indices.schedule.h"
#include "schedules/autoscheduled/mullapudi2016/avg_pool.schedule.h"
#include "schedules/autoscheduled/mullapudi2016/avg_pool_global.schedule.h"
#include "schedules/autoscheduled/mullapudi2016/convolution.schedule.h"
#include "schedules/autoscheduled/mullapudi2016/convolution_pointwise.schedule.h"
#include "schedules/autoscheduled/mullapudi2016/convolution_depthwise.schedule.h"
#include "schedules/autoscheduled/mullapudi2016/convolution_depthwise_1d.schedule.h"
#pragma GCC diagnostic pop

namespace poolconv::schedules {

namespace {

struct CheckedInSchedule {
    ScheduleAuthor author;
    const char *variant;
    void (*apply)(Halide::Pipeline, Halide::Target);
};

const CheckedInSchedule kSchedules[] = {
    {ScheduleAuthor::adams2019, "max_pool", &apply_schedule_adams2019_max_pool},
    {ScheduleAuthor::adams2019, "max_pool_with_indices", &apply_schedule_adams2019_max_pool_with_indices},
    {ScheduleAuthor::adams2019, "avg_pool", &apply_schedule_adams2019_avg_pool},
    {ScheduleAuthor::adams2019, "avg_pool_global", &apply_schedule_adams2019_avg_pool_global},
    {ScheduleAuthor::adams2019, "convolution", &apply_schedule_adams2019_convolution},
    {ScheduleAuthor::adams2019, "convolution_pointwise", &apply_schedule_adams2019_convolution_pointwise},
    {ScheduleAuthor::adams2019, "convolution_depthwise", &apply_schedule_adams2019_convolution_depthwise},
    {ScheduleAuthor::adams2019, "convolution_depthwise_1d", &apply_schedule_adams2019_convolution_depthwise_1d},
    {ScheduleAuthor::mullapudi2016, "max_pool", &apply_schedule_mullapudi2016_max_pool},
    {ScheduleAuthor::mullapudi2016, "max_pool_with_indices", &apply_schedule_mullapudi2016_max_pool_with_indices},
    {ScheduleAuthor::mullapudi2016, "avg_pool", &apply_schedule_mullapudi2016_avg_pool},
    {ScheduleAuthor::mullapudi2016, "avg_pool_global", &apply_schedule_mullapudi2016_avg_pool_global},
    {ScheduleAuthor::mullapudi2016, "convolution", &apply_schedule_mullapudi2016_convolution},
    {ScheduleAuthor::mullapudi2016, "convolution_pointwise", &apply_schedule_mullapudi2016_convolution_pointwise},
    {ScheduleAuthor::mullapudi2016, "convolution_depthwise", &apply_schedule_mullapudi2016_convolution_depthwise},
    {ScheduleAuthor::mullapudi2016, "convolution_depthwise_1d", &apply_schedule_mullapudi2016_convolution_depthwise_1d},
};

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
