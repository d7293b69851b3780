#!/usr/bin/env bash
# Benchmark of statectl against jq and Terraform on large generated states.
#
# This script owns the benchmark procedure: build, generate the states (benches/gen_state.py),
# time each tool on the same file in the same run, and print a Markdown table on stdout. Progress
# and skip messages go to stderr, so `bench.sh > results.md` keeps only the table.
#
#   benches/bench.sh [--runs R] [--large] [--regen] [--query-only]
#
#   --runs R   timed runs per command after one warm-up (default 7)
#   --large    also benchmark the 100k-instance (~250 MB) state
#   --regen    regenerate the states even if they exist (after a change to gen_state.py)
#   --query-only  only the `query` rows
#
# Environment: TERRAFORM=/path/to/terraform picks the Terraform binary (otherwise
# target/terraform/bin/terraform, then `terraform` on PATH).
#
# To benchmark another command, add one line to bench_file(): bench "NAME" CMD ARGS...
# bench_many times a scan of 100 generated states of 1 MB in one run. bench_query times `query`
# against jq on the same expressions (QUERIES), `cat` (the floor) and `terraform show -json`,
# interleaved round by round.
set -euo pipefail

RUNS=7
LARGE=0
REGEN=0
QUERY_ONLY=0
while (($#)); do
  case "$1" in
    --runs) RUNS="${2:?--runs needs a number}"; shift 2 ;;
    --runs=*) RUNS="${1#--runs=}"; shift ;;
    --large) LARGE=1; shift ;;
    --regen) REGEN=1; shift ;;
    --query-only) QUERY_ONLY=1; shift ;;
    -h|--help) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench: unknown argument \`$1\` (try --help)" >&2; exit 2 ;;
  esac
done
if ! [[ "$RUNS" =~ ^[1-9][0-9]*$ ]]; then
  echo "bench: --runs must be a positive integer, got \`$RUNS\`" >&2
  exit 2
fi

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="$ROOT/target/bench"
mkdir -p "$OUT"

log() { printf '%s\n' "$*" >&2; }

# --- prerequisites: explain, never install (installing is the user's call) ----------------------
missing=0
if ! /usr/bin/time --version 2>&1 | grep -q GNU; then
  log "bench: GNU time is needed at /usr/bin/time for peak memory (%M)."
  log "hint: sudo apt-get update && sudo apt-get install -y time"
  missing=1
fi
if ! command -v jq >/dev/null; then
  log "bench: jq is needed as a reference point."
  log "hint: sudo apt-get update && sudo apt-get install -y jq"
  missing=1
fi
if ! command -v python3 >/dev/null; then
  log "bench: python3 (3.11+) is needed to generate the states."
  missing=1
fi
((missing == 0)) || exit 2

# A sub-millisecond clock: GNU time's %e has a 10 ms resolution, too coarse for fast runs.
# EPOCHREALTIME (bash >= 5) costs no fork; `date +%s.%N` is the fallback.
if [[ -n "${EPOCHREALTIME:-}" ]]; then
  now() { REPLY="${EPOCHREALTIME/,/.}"; }
else
  now() { REPLY="$(date +%s.%N)"; }
fi

# Terraform asks checkpoint.hashicorp.com for updates unless told not to; keep the network out of
# the timings.
export CHECKPOINT_DISABLE=1

# --- build ---------------------------------------------------------------------------------------
STATECTL=""
log "bench: cargo build --release"
if (cd "$ROOT" && cargo build --release >&2); then
  if [[ -x "$ROOT/target/release/statectl" ]]; then
    STATECTL="$ROOT/target/release/statectl"
  else
    log "bench: skipping statectl: the build succeeded but target/release/statectl is missing"
  fi
else
  log "bench: skipping statectl: \`cargo build --release\` failed (see above); jq and terraform still run"
fi

TF=""
if [[ -n "${TERRAFORM:-}" ]]; then
  TF="$TERRAFORM"
elif [[ -x "$ROOT/target/terraform/bin/terraform" ]]; then
  TF="$ROOT/target/terraform/bin/terraform"
elif command -v terraform >/dev/null; then
  TF="$(command -v terraform)"
fi
if [[ -n "$TF" ]]; then
  log "bench: terraform: $TF ($("$TF" version 2>/dev/null | head -n1 || true))"
else
  log "bench: skipping terraform: none found (set TERRAFORM, run scripts/install-terraform.sh, or put terraform on PATH)"
fi

# --- states ----------------------------------------------------------------------------------------
gen() { # gen N FILE
  if ((REGEN)) || [[ ! -s "$2" ]]; then
    log "bench: generating $2"
    python3 "$ROOT/benches/gen_state.py" --instances "$1" --out "$2"
  fi
}
FILES=("$OUT/state-20k.tfstate")
gen 20000 "${FILES[0]}"
if ((LARGE)); then
  FILES+=("$OUT/state-100k.tfstate")
  gen 100000 "${FILES[1]}"
fi

MANY="$OUT/many-100x1mb"
if ((!QUERY_ONLY)) && { ((REGEN)) || [[ ! -d "$MANY" ]]; }; then
  log "bench: generating 100 states of 1 MB in $MANY"
  rm -rf "$MANY"
  python3 "$ROOT/benches/gen_state.py" --many 100 --size-mb 1 --out-dir "$MANY"
fi

# --- measuring -------------------------------------------------------------------------------------
# Run from an empty folder, so no terraform.tfstate, .terraform or *.tf nearby can change what a
# tool does.
WORK="$(mktemp -d "$OUT/work.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"

SEP=$'\x1f'       # field separator of ROWS: command names may contain "|"
ROWS=()           # file, size (MB), name, wall (s), peak RSS (MB) per benchmarked command
declare -A BASE_WALL BASE_RSS   # per file: the baseline (statectl list) of the ratio columns
CUR_FILE=""
CUR_SIZE=""

median() { # median of the arguments
  printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END {
    if (NR % 2) printf "%.6f", v[(NR + 1) / 2]; else printf "%.6f", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

run_once() { # run_once CMD... ; sets WALL (s) and RSS (KB); returns the command's status
  local t0 t1 rc=0
  now; t0="$REPLY"
  /usr/bin/time -f '%e %M' -o "$WORK/time.out" "$@" >/dev/null 2>"$WORK/stderr" || rc=$?
  now; t1="$REPLY"
  WALL="$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f", b - a }')"
  # On failure GNU time writes "Command exited with non-zero status N" first: the figures are last.
  RSS="$(tail -n1 "$WORK/time.out" | awk '{ print $2 }')"
  return "$rc"
}

# bench NAME CMD... : one warm-up, then RUNS timed runs; records the medians as a table row.
bench() {
  local name="$1"; shift
  local walls=() rsss=() i
  if ! run_once "$@"; then
    log "bench: $name failed on $(basename "$CUR_FILE"); skipped. Its stderr:"
    head -n 5 "$WORK/stderr" | sed 's/^/    /' >&2
    return 0
  fi
  for ((i = 1; i <= RUNS; i++)); do
    if ! run_once "$@"; then
      log "bench: $name failed on run $i; skipped"
      return 0
    fi
    walls+=("$WALL"); rsss+=("$RSS")
  done
  local wall rss_mb
  wall="$(median "${walls[@]}")"
  rss_mb="$(awk -v k="$(median "${rsss[@]}")" 'BEGIN { printf "%.1f", k / 1024 }')"
  log "bench: $name: ${wall}s, ${rss_mb} MB"
  local file; file="$(basename "$CUR_FILE")"
  if [[ "$name" == "statectl list" ]]; then
    BASE_WALL[$file]="$wall"; BASE_RSS[$file]="$rss_mb"
  fi
  ROWS+=("$file$SEP$CUR_SIZE$SEP$name$SEP$wall$SEP$rss_mb")
}

bench_file() { # bench_file FILE: every command on the same file
  CUR_FILE="$1"
  CUR_SIZE="$(awk -v b="$(stat -c %s "$1")" 'BEGIN { printf "%.1f", b / 1e6 }')"
  log "bench: $(basename "$1") ($CUR_SIZE MB), $RUNS runs each after one warm-up"
  # statectl first: it is the baseline of the ratio columns.
  if [[ -n "$STATECTL" ]]; then
    bench "statectl list" "$STATECTL" list "$1"
  fi
  bench "jq '.resources|length'" jq '.resources|length' "$1"
  if [[ -n "$TF" ]]; then
    bench "terraform state list" "$TF" state list -state="$1"
  fi
  if [[ -n "$STATECTL" ]]; then
    # --fail-on never: findings exit 1, which the harness would take for a failure.
    bench "statectl scan" "$STATECTL" scan --fail-on never --format json "$1"
  fi
  # A write: each run taints one instance of a fresh copy (so there is always a change to make).
  # The copy is part of every write's time, so it is timed alone as well.
  local address
  address="$("${STATECTL:-false}" list "$1" 2>/dev/null | sed -n '1000p')"
  if [[ -n "$address" ]]; then
    bench "cp (part of both taints)" cp "$1" "$WORK/write.tfstate"
    bench "statectl taint" sh -c 'cp "$0" "$1" && exec "$2" taint "$3" "$1" --backup - >/dev/null' \
      "$1" "$WORK/write.tfstate" "$STATECTL" "$address"
    if [[ -n "$TF" ]]; then
      bench "terraform taint" sh -c 'cp "$0" "$1" && exec "$2" taint -state="$1" -backup=- "$3"' \
        "$1" "$WORK/write.tfstate" "$TF" "$address"
    fi
  fi
}

# The queries of the `query` rows: a JSONPath for statectl, a tab, the jq filter that does the same job.
QUERIES=(
  '$.resources[*].instances[*].attributes.id'$'\t''[.resources[].instances[].attributes.id]'
  "\$.resources[?@.type=='aws_instance'].instances[*].attributes.id"$'\t''[.resources[] | select(.type == "aws_instance") | .instances[].attributes.id]'
  "\$..instances[?@.status=='tainted']"$'\t''[.. | objects | .instances? | arrays | .[] | select(.status? == "tainted")]'
)
QROWS=()          # per query row: file, size, name, wall, RSS (MB), wall of cat, wall of jq on the same query

# bench_query FILE: each query by statectl and by jq, `cat` (the floor: reading the bytes) and
# `terraform show -json` (the state as JSON, which is what one pipes into jq), interleaved: every
# round runs each command once, so a change in the machine's load moves them all alike.
bench_query() {
  local file="$1" names=() cmds=() i round path filter
  names+=("cat"); cmds+=("$(printf '%q ' cat "$file")")
  for query in "${QUERIES[@]}"; do
    IFS=$'\t' read -r path filter <<<"$query"
    if [[ -n "$STATECTL" ]]; then
      names+=("statectl query '$path'"); cmds+=("$(printf '%q ' "$STATECTL" query "$path" "$file")")
    fi
    names+=("jq '$filter'"); cmds+=("$(printf '%q ' jq "$filter" "$file")")
  done
  if [[ -n "$TF" ]]; then
    names+=("terraform show -json"); cmds+=("$(printf '%q ' "$TF" show -json "$file")")
  fi
  log "bench: query rows on $(basename "$file"), $RUNS interleaved rounds after one warm-up"
  local -a walls=() rsss=() failed=()
  for i in "${!cmds[@]}"; do
    if ! eval "run_once ${cmds[i]}"; then
      log "bench: ${names[i]} failed on $(basename "$file"); skipped. Its stderr:"
      head -n 5 "$WORK/stderr" | sed 's/^/    /' >&2
      failed[i]=1
    fi
  done
  for ((round = 1; round <= RUNS; round++)); do
    for i in "${!cmds[@]}"; do
      [[ -n "${failed[i]:-}" ]] && continue
      if eval "run_once ${cmds[i]}"; then
        walls[i]+=" $WALL"; rsss[i]+=" $RSS"
      else
        failed[i]=1
      fi
    done
  done
  local cat_wall="" jq_wall="" wall rss_mb
  for i in "${!cmds[@]}"; do
    [[ -n "${failed[i]:-}" ]] && continue
    # shellcheck disable=SC2086 # the lists are space-separated numbers
    wall="$(median ${walls[i]})"
    # shellcheck disable=SC2086
    rss_mb="$(awk -v k="$(median ${rsss[i]})" 'BEGIN { printf "%.1f", k / 1024 }')"
    log "bench: ${names[i]}: ${wall}s, ${rss_mb} MB"
    case "${names[i]}" in
      cat) cat_wall="$wall" ;;
      jq*) jq_wall="$wall" ;;
    esac
    # A statectl row is followed by the jq row of the same query: pair them when it comes.
    QROWS+=("$(basename "$file")$SEP$CUR_SIZE$SEP${names[i]}$SEP$wall$SEP$rss_mb$SEP$cat_wall$SEP")
    if [[ "${names[i]}" == jq* && ${#QROWS[@]} -ge 2 ]]; then
      local previous="${QROWS[-2]}"
      [[ "$previous" == *"${SEP}statectl query "* ]] && QROWS[-2]="${previous%"$SEP"}$SEP$jq_wall"
    fi
  done
}

bench_many() { # bench_many DIR: one run over every state in DIR (the CI case: many small states)
  CUR_FILE="$1"
  CUR_SIZE="$(du -sm "$1" | awk '{ print $1 }')"
  local count; count="$(find "$1" -name '*.tfstate' | wc -l)"
  log "bench: $count states in $(basename "$1") ($CUR_SIZE MB), $RUNS runs each after one warm-up"
  if [[ -n "$STATECTL" ]]; then
    bench "statectl scan ($count states)" "$STATECTL" scan --fail-on never --format json "$1"
  fi
  bench "jq '.resources|length' ($count files)" jq '.resources|length' "$1"/*.tfstate
}

for f in "${FILES[@]}"; do
  if ((QUERY_ONLY)); then
    CUR_FILE="$f"
    CUR_SIZE="$(awk -v b="$(stat -c %s "$f")" 'BEGIN { printf "%.1f", b / 1e6 }')"
  else
    bench_file "$f"
  fi
  bench_query "$f"
done
((QUERY_ONLY)) || bench_many "$MANY"

# --- report ----------------------------------------------------------------------------------------
ratio() { # ratio VALUE BASE
  if [[ -z "$2" ]]; then echo "n/a"; else awk -v v="$1" -v b="$2" 'BEGIN { printf "%.1fx", v / b }'; fi
}
if ((${#ROWS[@]})); then
  echo "| file | size (MB) | command | median wall (s) | median peak RSS (MB) | wall vs statectl | RSS vs statectl |"
  echo "|---|---:|---|---:|---:|---:|---:|"
  for row in "${ROWS[@]}"; do
    IFS="$SEP" read -r file size name wall rss <<<"$row"
    # A "|" inside a table cell must be escaped, even inside backticks (GitHub Markdown).
    printf '| %s | %s | `%s` | %.3f | %s | %s | %s |\n' "$file" "$size" "${name//|/\\|}" "$wall" "$rss" \
      "$(ratio "$wall" "${BASE_WALL[$file]:-}")" "$(ratio "$rss" "${BASE_RSS[$file]:-}")"
  done
  echo
fi
if ((${#QROWS[@]})); then
  echo "| file | command | median wall (s) | median peak RSS (MB) | x cat (the floor) | RSS / file | jq / statectl, same query |"
  echo "|---|---|---:|---:|---:|---:|---:|"
  for row in "${QROWS[@]}"; do
    IFS="$SEP" read -r file size name wall rss cat_wall jq_wall <<<"$row"
    printf '| %s | `%s` | %.3f | %s | %s | %s | %s |\n' "$file" "${name//|/\\|}" "$wall" "$rss" \
      "$(ratio "$wall" "$cat_wall")" "$(ratio "$rss" "$size")" \
      "$([[ "$name" == statectl* ]] && ratio "$jq_wall" "$wall" || echo "")"
  done
fi
echo
if ((${#ROWS[@]})); then
  echo "_${RUNS} timed runs per command after one warm-up; $(nproc) CPUs; wall time by a sub-millisecond clock, peak RSS by GNU time; ratio = command / \`statectl list\` on the same file._"
else
  echo "_${RUNS} interleaved rounds after one warm-up; $(nproc) CPUs; wall time by a sub-millisecond clock, peak RSS by GNU time; ratios against \`cat\` and jq from the same rounds._"
fi
if [[ -z "$STATECTL" ]]; then
  echo
  echo "_statectl was not built: ratios are n/a._"
fi
