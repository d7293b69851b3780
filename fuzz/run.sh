#!/usr/bin/env bash
# Fuzz statectl's untrusted-input engines with AFL++ (cargo-afl), each target for MINUTES, from seed
# corpora made from the repository's own test data. The invariants live in src/fuzzing.rs; the same
# ones run as property tests in `cargo test`.
#
#   fuzz/run.sh [MINUTES] [TARGET...]      default: 5 minutes each, every target
#
# Needs: `cargo install cargo-afl` (then `cargo afl config --build` once) and Debian's `afl++`.
# Findings land in fuzz/out/TARGET/default/crashes/; the script exits 1 when there are any, and
# prints how to replay one (`fuzz/target/release/TARGET < FILE`).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
FUZZ=$(pwd)
ROOT=$(cd .. && pwd)
MINUTES=${1:-5}
shift || true
TARGETS=("$@")
if [ ${#TARGETS[@]} -eq 0 ]; then
    TARGETS=(state address profiles msgpack http_answer duration lock_info)
fi

cargo afl build --release >&2

# Seeds: small files an engine reads, taken from the test data (AFL wants seeds under 1 MB).
seed() {
    local target=$1 dir="$FUZZ/seeds/$1"
    rm -rf "$dir" && mkdir -p "$dir"
    case $target in
        state)
            find "$ROOT/testdata" "$ROOT/../shared/corpus" -name '*.tfstate' -size -64k 2>/dev/null \
                | head -n 200 | while read -r file; do cp "$file" "$dir/$(echo "$file" | md5sum | cut -c1-12)"; done ;;
        address)
            local n=0
            for file in "$ROOT"/testdata/states/*.tfstate; do
                "$ROOT/target/release/statectl" list "$file" 2>/dev/null || true
            done | sort -u | head -n 100 | while IFS= read -r line; do
                n=$((n + 1)); printf '%s' "$line" > "$dir/$n"
            done
            printf '%s' 'terraform_data.cbd (deposed object d452a61b)' > "$dir/deposed" ;;
        profiles)
            cp "$ROOT"/crates/reconcile/src/reconcile/profiles/*.toml "$ROOT/tests/sim/demo.toml" "$dir/" ;;
        msgpack)
            printf '\001\202\242id\243abc\245count\313\100\011\041\373\124\104\055\030' > "$dir/object"
            printf '\002\222\052\242hi' > "$dir/tuple"
            printf '\000\222\304\010"string"\243abc' > "$dir/dynamic" ;;
        http_answer)
            printf '\000\144retry-after: 3\ncontent-type: application/json\n\n{"lifecycleState":"RUNNING","id":"x"}' > "$dir/ok"
            printf '\001\233retry-after: Sun, 06 Nov 1994 08:49:37 GMT\n\n{}' > "$dir/503"
            printf '\000\144\n\n[{"lifecycleState":1}]' > "$dir/shape" ;;
        duration)
            printf '2s\n500ms\n10m\n1h30m' > "$dir/plain"
            printf '0\n1ns\n1.5us\n2ms' > "$dir/small"
            printf '3000000000000000h\n18446744073709551615s\n5124095576030431h\n1ms' > "$dir/huge"
            printf '18446744073709551616s\n-1s\nNaN\n1e999s' > "$dir/refused" ;;
        lock_info)
            printf '%s' '{"ID":"6b1d2a3e-0000-4000-8000-000000000001","Operation":"OperationTypeApply","Info":"","Who":"ana@ci-7","Version":"1.15.5","Created":"2026-11-22T07:00:00.5Z","Path":"terraform.tfstate"}' > "$dir/terraform"
            printf '%s' '{"ID":"x","Who":"\u00e9\u001b[31m","Version":"statectl 0.1.0","Operation":"statectl taint"}' > "$dir/statectl"
            python3 -c 'print("{\"ID\":\"x\",\"Who\":\"" + "w" * 5000 + "\"}", end="")' > "$dir/long" ;;
    esac
}

# The address seeds come from statectl's own list output (built only when that target runs).
if printf '%s\n' "${TARGETS[@]}" | grep -qx address; then
    (cd "$ROOT" && cargo build --release --bin statectl >&2)
fi

export AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_NO_UI=1 AFL_QUIET=1
found=0
for target in "${TARGETS[@]}"; do
    seed "$target"
    out="$FUZZ/out/$target"
    rm -rf "$out" && mkdir -p "$FUZZ/out"
    echo "fuzz: $target for $MINUTES min" >&2
    cargo afl fuzz -i "$FUZZ/seeds/$target" -o "$out" -V $((MINUTES * 60)) \
        "$FUZZ/target/release/$target" > "$FUZZ/out-$target.log" 2>&1 || true
    stats="$out/default/fuzzer_stats"
    execs=$(awk -F': ' '/^execs_done/ {print $2}' "$stats" 2>/dev/null || echo '?')
    crashes=$(find "$out/default/crashes" -type f -name 'id:*' 2>/dev/null | wc -l)
    hangs=$(find "$out/default/hangs" -type f -name 'id:*' 2>/dev/null | wc -l)
    echo "fuzz: $target: $execs executions, $crashes crashes, $hangs hangs" >&2
    if [ "$crashes" -gt 0 ]; then
        found=1
        echo "fuzz: replay with: fuzz/target/release/$target < $(find "$out/default/crashes" -type f -name 'id:*' | head -n 1)" >&2
    fi
done
exit $found
