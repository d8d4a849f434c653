// The base of every poolconv generator: who schedules its pipeline. Our plans (schedules/) by
// default; with schedule_by=adams2019 or mullapudi2016 an autoscheduler's checked-in result
// (schedules/autoscheduled.h), which the generator's schedule() applies; with autoscheduler=<name>
// the autoscheduler running now.
#pragma once

#include <optional>
#include <string>

#include "Halide.h"

#include "generators/fixed_layer.h"
#include "schedules/autoscheduled.h"

namespace poolconv::generators {

template<typename Derived>
class ScheduledGenerator : public Halide::Generator<Derived> {
public:
    // Who schedules the kernel: poolconv (schedules/), or an autoscheduler's checked-in result.
    Halide::GeneratorParam<schedules::ScheduleAuthor> schedule_by{"schedule_by", schedules::ScheduleAuthor::poolconv,
                                                                  schedules::schedule_author_names()};
    // One layer's shapes as constants (generators/fixed_layer.h); empty: any shape.
    Halide::GeneratorParam<std::string> layer{"layer", ""};

protected:
    // Whether generate() leaves the schedule to others: an autoscheduler running now
    // (autoscheduler=<name>), or a checked-in result. Such pipelines keep only what the algorithm
    // needs (no layout chosen for our tiles).
    bool scheduled_elsewhere() const {
        return this->using_autoscheduler() || schedule_by != schedules::ScheduleAuthor::poolconv;
    }

    // The layer this kernel is built for (empty: any).
    const FixedLayer &fixed_layer() const {
        if (!fixed_layer_) fixed_layer_ = FixedLayer(layer.value());  // parsed once
        return *fixed_layer_;
    }

    // Applies the checked-in result for `variant` (its file name) when schedule_by names one.
    void apply_checked_in_schedule(const std::string &variant) {
        if (schedule_by == schedules::ScheduleAuthor::poolconv) return;
        schedules::apply_autoscheduled(schedule_by, variant, this->get_pipeline(), this->get_target());
    }

private:
    mutable std::optional<FixedLayer> fixed_layer_;
};

}  // namespace poolconv::generators
