// The autoscheduler results checked in under schedules/autoscheduled/<scheduler>/ (written by
// tools/autoschedule.sh): what Adams2019 and Mullapudi2016 plan for each generator on the AVX2
// target, from the generator's estimates. A generator built with schedule_by=<scheduler>
// applies them instead of our schedules: for comparison (bench/, README "Autoschedulers") and as a
// starting point for tuning.
#pragma once

#include <map>
#include <string>

#include "Halide.h"

namespace poolconv::schedules {

// Who schedules a generator's pipeline: poolconv (this folder's plans) or a checked-in result.
enum class ScheduleAuthor { poolconv, adams2019, mullapudi2016 };

// For GeneratorParam<ScheduleAuthor>: "poolconv", "adams2019", "mullapudi2016".
const std::map<std::string, ScheduleAuthor> &schedule_author_names();

// Applies `author`'s checked-in result for `variant` (the file name in its folder, e.g.
// "convolution_pointwise") to the generator's pipeline. Throws Halide::CompileError when there is
// none. A result names the pipeline's Funcs by position: after an algorithm change, rerun
// tools/autoschedule.sh.
void apply_autoscheduled(ScheduleAuthor author, const std::string &variant, const Halide::Pipeline &pipeline,
                         const Halide::Target &target);

}  // namespace poolconv::schedules
