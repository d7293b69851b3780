#!/usr/bin/env bash
# The speed benchmark: statectl against jq, real Terraform and the physical floor (reading the bytes
# with `cat`; for a write, `cp` + `fsync` of the same file), every command of a state interleaved
# round by round in one run, so a change in the machine's load moves them all alike. Prints one
# Markdown table on stdout (medians of wall time and of peak RSS, and the ratios the speed goals are
# written in); progress and skips go to stderr, so `bench.sh > results.md` keeps only the table.
#
#   benches/bench.sh [--runs R] [--large] [--sizes "20k 100k"] [--only GROUPS] [--no-terraform] [--regen]
#
#   --runs R        timed rounds after one warm-up round (default 5)
#   --large         also the 400k-instance state (about 1 GB)
#   --sizes LIST    the generated states, by instance count: 20k (51 MB), 100k (257 MB), 400k (1 GB)
#   --only GROUPS   some of: read query write encrypted many (comma-separated; default all)
#   --no-terraform  leave Terraform out (its rows take most of the run on the large states)
#   --regen         generate the states again (after a change to gen_state.py)
#
# The groups, per state: `read` (list, show, summary, scan; floor `cat`), `query` (three JSONPath
# expressions against jq doing the same job), `write` (taint and forget of a
# fresh copy, the copy untimed; floor `cp` + `fsync`), `encrypted` (list and untaint of an OpenTofu
# envelope at its defaults against the plaintext, and a ten-instance state to isolate the key
# derivation). Once per run, `many`: scan of a folder of 2,070 generated states (178 MB, mixed sizes)
# and of the real states in testdata/ and ../shared/corpus, floor `cat` of every file.
#
# Environment: STATECTL (default: `cargo build --profile dist`, the prebuilt binaries' profile),
# STATECTL_BEFORE (another build, e.g. main's: timed in the same rounds as a `before` column, for a
# change's before and after), TERRAFORM (default:
# target/terraform/bin/terraform, then `terraform` on PATH), STATECTL_BENCH_DIR (where the generated
# states are kept; default target/bench).
set -euo pipefail

RUNS=5
SIZES="20k 100k"
ONLY="read,query,write,encrypted,many"
USE_TERRAFORM=1
REGEN=0
# shellcheck source=benches/flags.sh
source "$(dirname "${BASH_SOURCE[0]}")/flags.sh"
parse_flags "bench" 2,25 --runs=RUNS "--large=SIZES:20k 100k 400k" --sizes=SIZES --only=ONLY --no-terraform=USE_TERRAFORM:0 --regen=REGEN:1 -- "$@"
[[ "$RUNS" =~ ^[1-9][0-9]*$ ]] || { echo "bench: --runs must be a positive integer, got \`$RUNS\`" >&2; exit 2; }
for size in $SIZES; do
  [[ "$size" =~ ^(20k|100k|400k)$ ]] || { echo "bench: unknown size \`$size\` (20k, 100k or 400k)" >&2; exit 2; }
done
for group in ${ONLY//,/ }; do
  [[ "$group" =~ ^(read|query|write|encrypted|many)$ ]] || { echo "bench: unknown group \`$group\`" >&2; exit 2; }
done
wants() { [[ ",$ONLY," == *",$1,"* ]]; }

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DATA="${STATECTL_BENCH_DIR:-$ROOT/target/bench}"
mkdir -p "$DATA"
log() { printf '%s\n' "$*" >&2; }

# --- prerequisites: explain, never install -------------------------------------------------------
missing=0
/usr/bin/time --version 2>&1 | grep -q GNU || { log "bench: GNU time is needed at /usr/bin/time (peak RSS)"; log "hint: apt-get install -y time"; missing=1; }
command -v jq >/dev/null || { log "bench: jq is needed as a reference point"; log "hint: apt-get install -y jq"; missing=1; }
command -v python3 >/dev/null || { log "bench: python3 (3.11+) is needed to generate the states"; missing=1; }
((missing == 0)) || exit 2
export CHECKPOINT_DISABLE=1   # Terraform asks checkpoint.hashicorp.com for updates otherwise

STATECTL="${STATECTL:-}"
if [[ -z "$STATECTL" ]]; then
  log "bench: cargo build --profile dist"
  (cd "$ROOT" && cargo build --profile dist --locked >&2)
  STATECTL="$ROOT/target/dist/statectl"
fi
TF=""
if ((USE_TERRAFORM)); then
  if [[ -n "${TERRAFORM:-}" ]]; then TF="$TERRAFORM"
  elif [[ -x "$ROOT/target/terraform/bin/terraform" ]]; then TF="$ROOT/target/terraform/bin/terraform"
  elif command -v terraform >/dev/null; then TF="$(command -v terraform)"
  else log "bench: skipping terraform: none found (TERRAFORM, scripts/install-terraform.sh, or PATH)"
  fi
fi
[[ -n "$TF" ]] && log "bench: terraform: $TF ($("$TF" version | head -n1))"

# --- states -----------------------------------------------------------------------------------------
state_of() { # state_of SIZE: the generated state's path, made when missing
  local count="${1%k}000" file="$DATA/state-$1.tfstate"
  if ((REGEN)) || [[ ! -s "$file" ]]; then
    log "bench: generating $file"
    python3 "$ROOT/benches/gen_state.py" --instances "$count" --out "$file"
  fi
  printf '%s' "$file"
}

WORK="$(mktemp -d "${TMPDIR:-/tmp}/statectl-bench.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"   # no terraform.tfstate, .terraform or *.tf nearby to change what a tool does

# --- measuring --------------------------------------------------------------------------------------
# A row is one piece of work on one input; each of its roles (statectl, jq, terraform, floor) is a
# command line, with an optional untimed setup run before each timing (a fresh copy to write to).
ROW_NAMES=() ROW_FILES=() ROW_BYTES=()
declare -A CMD SETUP WALLS RSSS FAILED
ROLES=(statectl before jq terraform floor)
BEFORE="${STATECTL_BEFORE:-}"
# Both builds copied afresh, side by side: a binary's peak RSS depends on how its file sits in the
# page cache (one just written maps about 1 MB more as it starts than one read back from disk), so
# the two are compared alike, and the RSS column is not the copy's history.
mkdir "$WORK/bin"
cp "$STATECTL" "$WORK/bin/after" && STATECTL="$WORK/bin/after"
if [[ -n "$BEFORE" ]]; then cp "$BEFORE" "$WORK/bin/before" && BEFORE="$WORK/bin/before"; fi

row() { # row NAME FILE BYTES: starts a row; then role ROLE CMD [SETUP]
  ROW_NAMES+=("$1"); ROW_FILES+=("$2"); ROW_BYTES+=("$3")
}
role() { # role ROLE COMMAND [SETUP]: shell text, run by bash -c
  local r=$((${#ROW_NAMES[@]} - 1))
  CMD[$r.$1]="$2"; SETUP[$r.$1]="${3:-}"
  if [[ "$1" == statectl && -n "$BEFORE" ]]; then   # the same command with the other build
    CMD[$r.before]="${2//"$STATECTL"/"$BEFORE"}"; SETUP[$r.before]="${3:-}"
  fi
}

run_timed() { # run_timed KEY: one untimed setup, one timed run; sets WALL (s) and RSS (KB)
  local t0 t1
  [[ -n "${SETUP[$1]}" ]] && { bash -c "${SETUP[$1]}" >/dev/null 2>&1 || return 1; }
  t0="${EPOCHREALTIME/,/.}"
  /usr/bin/time -f '%M' -o "$WORK/time.out" bash -c "exec ${CMD[$1]}" >/dev/null 2>"$WORK/stderr" || return 1
  t1="${EPOCHREALTIME/,/.}"
  WALL="$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f", b - a }')"
  RSS="$(tail -n1 "$WORK/time.out")"
}

measure() { # measure FIRST LAST: rows FIRST..LAST interleaved, RUNS rounds after a warm-up
  local round r key order
  for ((round = 0; round <= RUNS; round++)); do
    # Every other round the other way round: a run leaves freed memory (and, on some virtual
    # machines, pages the host must back again) to the next one, so a fixed order favours
    # whichever command runs second (a taint of 50 MB measured 0.14 s as `before` and 0.23 s first,
    # with the same code).
    order=("${ROLES[@]}")
    if ((round % 2)); then
      order=(); for key in "${ROLES[@]}"; do order=("$key" "${order[@]}"); done
    fi
    for ((r = $1; r <= $2; r++)); do
      for key in "${order[@]}"; do
        key="$r.$key"
        [[ -n "${CMD[$key]:-}" && -z "${FAILED[$key]:-}" ]] || continue
        if ! run_timed "$key"; then
          FAILED[$key]=1
          log "bench: ${ROW_NAMES[r]} ($key) failed; skipped. Its stderr:"
          head -n 3 "$WORK/stderr" | sed 's/^/    /' >&2
          continue
        fi
        ((round == 0)) && continue
        WALLS[$key]+=" $WALL"; RSSS[$key]+=" $RSS"
      done
    done
    log "bench: round $round of $RUNS done"
  done
}

MEDIAN_DECIMALS=6
# shellcheck source=benches/stats.sh
source "$ROOT/benches/stats.sh"
# shellcheck disable=SC2086 # the lists are space-separated numbers
med() { if [[ -n "${WALLS[$1]:-}" ]]; then median ${WALLS[$1]}; fi; }
# shellcheck disable=SC2086
# In MB of 10^6 bytes, as the files' sizes are (GNU time gives KiB): earlier runs printed MiB
# and divided by MB, which put every "RSS / file" 4.9% low.
med_rss() { if [[ -n "${RSSS[$1]:-}" ]]; then awk -v k="$(median ${RSSS[$1]})" 'BEGIN { printf "%.1f", k * 1024 / 1e6 }'; fi; }

# --- the rows -------------------------------------------------------------------------------------
q() { printf '%q' "$1"; }   # a path or argument quoted for bash -c

# Where a state's bytes sit in the page cache changes what reading them costs: a file Terraform
# just wrote (one write) or one read back from disk is held in large folios, mapped and copied in
# pieces of up to 2 MB; a file written in small pieces or copied with `cp` is held in 4 KB pages.
# Here the same 252 MB state took `cat` 0.048 s in 4 KB pages and 0.031 s in large folios,
# statectl `list` 0.133 s and 0.121 s. So each state is dropped from the page cache and read back
# once before its rows: every run measures the state a freshly read file is in.
settle() { # settle FILE...: drop the files from the page cache, read them back
  sync "$@"
  python3 - "$@" <<'PY'
import os, sys
for path in sys.argv[1:]:
    fd = os.open(path, os.O_RDONLY)
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    os.close(fd)
PY
  cat "$@" >/dev/null
}

read_rows() { # read_rows FILE BYTES
  local f; f="$(q "$1")"
  local address; address="$("$STATECTL" list "$1" | grep -v '\.data\.\|^data\.' | sed -n '1000p')"
  local type_name; type_name="$(sed -E 's/^(module\.[^.]+\.)*//; s/\[.*$//' <<<"$address")"
  # The process itself, reading no state: what the memory goal's "a fixed few MB" is (the binary,
  # its libraries, the runtime), measured in the same rounds.
  row "--version" "" 0
  role statectl "$STATECTL --version"
  row "list" "$1" "$2"
  role statectl "$STATECTL list $f"
  role jq "jq -r '.resources[] | .type + \".\" + .name' $f"
  [[ -n "$TF" ]] && role terraform "$TF state list -state=$f"
  role floor "cat $f"
  row "show $address" "$1" "$2"
  role statectl "$STATECTL show $(q "$address") $f"
  role jq "jq '.resources[] | select(.type + \".\" + .name == \"$type_name\")' $f"
  # (No `terraform state show` or `show -json`: they need the providers' schemas, which an empty
  # folder has not; `state list`, `taint` and `state rm` do not.)
  role floor "cat $f"
  row "summary" "$1" "$2"
  role statectl "$STATECTL summary $f"
  role jq "jq '[.resources[] | .instances | length] | add' $f"
  role floor "cat $f"
  row "scan" "$1" "$2"
  role statectl "$STATECTL scan --fail-on never --format json $f"
  role floor "cat $f"
}

# JSONPath for statectl, a tab, the jq filter that does the same job.
QUERIES=(
  '$.resources[*].instances[*].attributes.id'$'\t''[.resources[].instances[].attributes.id]'
  "\$.resources[?@.type=='aws_instance'].instances[*].attributes.id"$'\t''[.resources[] | select(.type == "aws_instance") | .instances[].attributes.id]'
  "\$..instances[?@.status=='tainted']"$'\t''[.. | objects | .instances? | arrays | .[] | select(.status? == "tainted")]'
)
query_rows() { # query_rows FILE BYTES
  local f path filter; f="$(q "$1")"
  for query in "${QUERIES[@]}"; do
    IFS=$'\t' read -r path filter <<<"$query"
    row "query $path" "$1" "$2"
    role statectl "$STATECTL query $(q "$path") $f"
    role jq "jq $(q "$filter") $f"
    role floor "cat $f"
  done
}

write_rows() { # write_rows FILE BYTES
  local f w; f="$(q "$1")"; w="$(q "$WORK/write.tfstate")"
  local address; address="$("$STATECTL" list "$1" | grep -v '\.data\.\|^data\.' | sed -n '1000p')"
  local a; a="$(q "$address")"
  # Each timed write starts with nothing waiting to be written back (the untimed copy, the run
  # before): on this kind of machine that writeback, not the command, set a 50 MB write's time.
  local fresh="cp $f $w && sync"
  row "taint" "$1" "$2"
  role statectl "$STATECTL taint $a $w --backup -" "$fresh"
  [[ -n "$TF" ]] && role terraform "$TF taint -state=$w -backup=- $a" "$fresh"
  role floor "sh -c 'cp \"\$0\" \"\$1\" && sync \"\$1\"' $f $(q "$WORK/floor.tfstate")" "sync"
  row "forget" "$1" "$2"
  role statectl "$STATECTL forget $a $w --backup -" "$fresh"
  [[ -n "$TF" ]] && role terraform "$TF state rm -state=$w -backup=- $a" "$fresh"
  role floor "sh -c 'cp \"\$0\" \"\$1\" && sync \"\$1\"' $f $(q "$WORK/floor.tfstate")" "sync"
}

# OpenTofu's defaults: pbkdf2 (600,000 rounds of SHA-512) and aes_gcm; the fallback lets the setup
# read the plaintext state and write it encrypted, as a migration does.
TF_ENCRYPTION_BENCH="$(cat "$ROOT/benches/opentofu-defaults.tfenc.hcl")"
export TF_ENCRYPTION_BENCH
encrypted_rows() { # encrypted_rows FILE BYTES
  local kind src
  for kind in plain enc; do
    for src in "$1" "$(state_of_tiny)"; do
      local copy; copy="$WORK/$(basename "$src" .tfstate)-$kind.tfstate"
      cp "$src" "$copy"
      local address; address="$("$STATECTL" list "$src" | grep -v '\.data\.\|^data\.' | sed -n '3p')"
      printf '%s' "$address" > "$copy.address"
      if [[ "$kind" == enc ]]; then
        TF_ENCRYPTION="$TF_ENCRYPTION_BENCH" "$STATECTL" taint "$address" "$copy" --backup - >/dev/null
      else
        "$STATECTL" taint "$address" "$copy" --backup - >/dev/null
      fi
    done
  done
  local big tiny; big="$(basename "$1" .tfstate)"; tiny="$(basename "$(state_of_tiny)" .tfstate)"
  local env="TF_ENCRYPTION=\"\$TF_ENCRYPTION_BENCH\""
  for src in "$big" "$tiny"; do
    local plain="$WORK/$src-plain.tfstate" enc="$WORK/$src-enc.tfstate" w="$WORK/enc-write.tfstate"
    local a; a="$(q "$(cat "$plain.address")")"
    local file="$1" bytes="$2"
    [[ "$src" == "$tiny" ]] && { file="$(state_of_tiny)"; bytes="$(stat -c %s "$file")"; }
    # The floor of an encrypted row is the same command on the plaintext: the goal is that the
    # envelope adds only its key derivation and the cipher (the ten-instance rows are the
    # derivation alone).
    row "list, encrypted" "$file" "$bytes"
    role statectl "env $env $STATECTL list $(q "$enc")"
    role floor "$STATECTL list $(q "$plain")"
    row "untaint, encrypted" "$file" "$bytes"
    role statectl "env $env $STATECTL untaint $a $(q "$w") --backup -" "cp $(q "$enc") $(q "$w")"
    role floor "$STATECTL untaint $a $(q "$w") --backup -" "cp $(q "$plain") $(q "$w")"
  done
}
state_of_tiny() {
  local file="$DATA/state-10.tfstate"
  [[ -s "$file" ]] || python3 "$ROOT/benches/gen_state.py" --instances 10 --out "$file" >&2
  printf '%s' "$file"
}

many_rows() {
  local many="$DATA/many-2070"
  if ((REGEN)) || [[ ! -d "$many" ]]; then
    log "bench: generating 2,070 states (178 MB) in $many"
    rm -rf "$many"
    python3 "$ROOT/benches/gen_state.py" --many 2070 --total-mb 178 --out-dir "$many" >&2
  fi
  # The real states others wrote: every file of testdata/ and the corpus that reads as a state.
  local real="$WORK/real"
  mkdir -p "$real"
  local n=0 file
  while IFS= read -r -d '' file; do
    if "$STATECTL" list "$file" >/dev/null 2>&1; then
      n=$((n + 1)); cp "$file" "$real/$n.tfstate"
    fi
  done < <(find "$ROOT/testdata" "$ROOT/../shared/corpus" -type f \( -name '*.tfstate' -o -name '*.json' \) -print0 2>/dev/null)
  local dir
  settle "$many"/*.tfstate "$real"/*.tfstate
  for dir in "$many" "$real"; do
    local count bytes; count="$(find "$dir" -name '*.tfstate' | wc -l)"; bytes="$(du -sb "$dir" | cut -f1)"
    row "scan of $count states" "$dir" "$bytes"
    role statectl "$STATECTL scan --fail-on never --format json $(q "$dir")"
    role jq "jq '.resources | length' $(q "$dir")/*.tfstate"
    role floor "cat $(q "$dir")/*.tfstate"
  done
}

# --- run ------------------------------------------------------------------------------------------
for size in $SIZES; do
  file="$(state_of "$size")"
  bytes="$(stat -c %s "$file")"
  settle "$file"
  first=${#ROW_NAMES[@]}
  wants read && read_rows "$file" "$bytes"
  wants query && query_rows "$file" "$bytes"
  wants write && write_rows "$file" "$bytes"
  [[ "$size" == 20k ]] && wants encrypted && encrypted_rows "$file" "$bytes"
  last=$((${#ROW_NAMES[@]} - 1))
  ((last >= first)) || continue
  log "bench: $(basename "$file") ($((bytes / 1000000)) MB): rows $first-$last, $RUNS rounds after a warm-up"
  measure "$first" "$last"
done
if wants many; then
  first=${#ROW_NAMES[@]}
  many_rows
  measure "$first" $((${#ROW_NAMES[@]} - 1))
fi

# --- report ---------------------------------------------------------------------------------------
ratio() { # ratio VALUE BASE
  if [[ -z "$1" || -z "$2" ]]; then echo ""; else awk -v v="$1" -v b="$2" 'BEGIN { printf "%.1fx", v / b }'; fi
}
secs() { if [[ -n "$1" ]]; then printf '%.3f' "$1"; fi; }
# The process's own peak (the first `--version` row's), for "RSS beyond the process / file".
PROCESS_RSS=""
for r in "${!ROW_NAMES[@]}"; do
  if [[ "${ROW_NAMES[r]}" == "--version" ]]; then PROCESS_RSS="$(med_rss "$r.statectl")"; break; fi
done
beyond() { # beyond RSS BYTES: (RSS - the process's) / the file, both in MB
  if [[ -n "$1" && -n "$PROCESS_RSS" ]]; then awk -v r="$1" -v p="$PROCESS_RSS" -v b="$2" 'BEGIN { printf "%.2fx", (r - p) / (b / 1e6) }'; fi
}
per_file() { # per_file RSS BYTES: RSS / the file, both in MB
  awk -v r="$1" -v b="$2" 'BEGIN { printf "%.2fx", r / (b / 1e6) }'
}
echo "| state | MB | work | statectl (s) | jq (s) | terraform (s) | floor (s) | statectl / floor | jq / statectl | terraform / statectl | statectl RSS (MB) | RSS / file | RSS beyond the process / file |"
echo "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for r in "${!ROW_NAMES[@]}"; do
  s="$(med "$r.statectl")"; j="$(med "$r.jq")"; t="$(med "$r.terraform")"; fl="$(med "$r.floor")"
  rss="$(med_rss "$r.statectl")"
  mb="$(awk -v b="${ROW_BYTES[r]}" 'BEGIN { printf "%.0f", b / 1e6 }')"
  name="${ROW_NAMES[r]}"
  printf '| %s | %s | `%s` | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' \
    "$(if [[ -n "${ROW_FILES[r]}" ]]; then basename "${ROW_FILES[r]}"; fi)" "$mb" "${name//|/\\|}" "$(secs "$s")" "$(secs "$j")" "$(secs "$t")" \
    "$(secs "$fl")" "$(ratio "$s" "$fl")" "$(ratio "$j" "$s")" "$(ratio "$t" "$s")" "$rss" \
    "$(if [[ -n "$rss" && "${ROW_BYTES[r]}" -ge 1000000 ]]; then per_file "$rss" "${ROW_BYTES[r]}"; fi)" \
    "$(if [[ -n "$rss" && "${ROW_BYTES[r]}" -ge 1000000 ]]; then beyond "$rss" "${ROW_BYTES[r]}"; fi)"
done
if [[ -n "$BEFORE" ]]; then
  echo
  echo "| state | work | before (s) | after (s) | before / floor | after / floor | before RSS (MB) | after RSS (MB) |"
  echo "|---|---|---:|---:|---:|---:|---:|---:|"
  for r in "${!ROW_NAMES[@]}"; do
    b="$(med "$r.before")"; [[ -n "$b" ]] || continue
    s="$(med "$r.statectl")"; fl="$(med "$r.floor")"; name="${ROW_NAMES[r]}"
    printf '| %s | `%s` | %s | %s | %s | %s | %s | %s |\n' "$(if [[ -n "${ROW_FILES[r]}" ]]; then basename "${ROW_FILES[r]}"; fi)" "${name//|/\\|}" \
      "$(secs "$b")" "$(secs "$s")" "$(ratio "$b" "$fl")" "$(ratio "$s" "$fl")" "$(med_rss "$r.before")" "$(med_rss "$r.statectl")"
  done
fi
echo
echo "_Medians of $RUNS interleaved rounds after a warm-up; $(nproc) CPUs; wall time by bash's \`EPOCHREALTIME\`, peak RSS by GNU time. Each state dropped from the page cache and read back once before its rows (as a freshly read file sits). Floor: \`cat\` of the same bytes (reads), \`cp\` + \`sync FILE\` (writes), the same command on the plaintext (encrypted rows)._"
