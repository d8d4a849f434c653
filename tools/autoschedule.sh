#!/usr/bin/env bash
# Regenerates the checked-in autoscheduler results in schedules/autoscheduled/<scheduler>/: Adams2019
# and Mullapudi2016 plan every generator variant for the AVX2 target, from the
# estimates the generator sets (generators/*.cpp), with the autoscheduler's default settings
# (Adams2019: its bundled cost model, beam size 32, 16 cores; Mullapudi2016 and Li2018: 16 cores,
# 16 MiB last-level cache, balance 40). Run it after changing an algorithm or its estimates: the
# results name the pipeline's Funcs by position, so an algorithm change makes them stale (the tests
# then fail). The plugins are those of the Halide the build was configured with (Halide_DIR).
#
#   tools/autoschedule.sh [build directory, default build] [scheduler ...]
#   ONLY=avg_pool_global tools/autoschedule.sh build      (one variant: its file name)
#
# Takes about 7 minutes on one core, 5 of them Adams2019's beam search on the general convolution.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build}"
shift || true
schedulers=("$@")
# Not Li2018: Halide 21's Li2018 still writes its schedule as an outline without the declarations
# of the Funcs and Vars it names, which does not compile (tests/ still check that it plans every
# generator).
[ ${#schedulers[@]} -gt 0 ] || schedulers=(Adams2019 Mullapudi2016)

generator="$build/generators/poolconv_generators"
[ -x "$generator" ] || { echo "autoschedule.sh: no $generator; build poolconv first (cmake --build $build --target poolconv_generators)" >&2; exit 1; }
halide_dir="$(sed -n 's/^Halide_DIR:PATH=//p' "$build/CMakeCache.txt")"
plugins="$(cd "$halide_dir/../.." && pwd)"  # <prefix>/lib64/cmake/Halide -> <prefix>/lib64
# Our avx2 path's target (cmake/PoolconvKernels.cmake, POOLCONV_ISAS) on Linux.
target=x86-64-linux-sse41-avx-f16c-fma-avx2

# "<file name> <generator> [generator params]": the algorithm variants of generators/variants.cmake,
# as the build lists them.
mapfile -t variants <"$build/generators/algorithm_variants.txt"

if [ -n "${ONLY:-}" ] && ! printf '%s\n' "${variants[@]}" | grep -q "^$ONLY "; then
    echo "autoschedule.sh: ONLY=$ONLY is not one of: $(printf '%s\n' "${variants[@]}" | cut -d' ' -f1 | tr '\n' ' ')" >&2
    exit 1
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
for scheduler in "${schedulers[@]}"; do
    lower="$(echo "$scheduler" | tr '[:upper:]' '[:lower:]')"
    out="$root/schedules/autoscheduled/$lower"
    mkdir -p "$out"
    for variant in "${variants[@]}"; do
        read -r name gen params <<<"$variant"
        [ -z "${ONLY:-}" ] || [ "$ONLY" = "$name" ] || continue
        start=$(date +%s)
        # shellcheck disable=SC2086  # params is a word list
        "$generator" -g "$gen" -f "${lower}_${name}" -o "$work" -e schedule \
            -p "$plugins/libautoschedule_${lower}.so" autoscheduler="$scheduler" \
            target="$target" $params >"$work/log" 2>&1 ||
            { cat "$work/log" >&2; exit 1; }
        # Halide's Mullapudi2016 (14 and 21 alike) leaves some names its reorders use undeclared.
        [ "$scheduler" != Mullapudi2016 ] || /usr/bin/python3 "$root/tools/fix_mullapudi_schedule.py" "$work/${lower}_${name}.schedule.h"
        # An unchanged result keeps its file (and time stamp): rewriting it would rebuild the
        # generator and so regenerate every kernel.
        if cmp -s "$work/${lower}_${name}.schedule.h" "$out/$name.schedule.h"; then
            echo "$scheduler $name: $(($(date +%s) - start)) s, unchanged"
        else
            mv "$work/${lower}_${name}.schedule.h" "$out/$name.schedule.h"
            echo "$scheduler $name: $(($(date +%s) - start)) s"
        fi
    done
done
