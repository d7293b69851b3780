# Shared by the benchmark scripts that run against moto's server on loopback (sourced, after the
# script sets BENCH, its name in messages): where things are, the release binary, the tools'
# presence, moto's server for the run, Terraform with the AWS provider, timing a command.

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="$ROOT/target/bench"
mkdir -p "$OUT"
MOTO="${MOTO_SERVER:-$ROOT/target/moto/venv/bin/moto_server}"
# moto's venv has boto3, for the untimed uploads.
PY="$(dirname "$MOTO")/python"

log() { printf '%s\n' "$*" >&2; }
# shellcheck source=benches/stats.sh
source "$ROOT/benches/stats.sh"

# require_tools HINT TOOL...: stops (exit 2) at the first TOOL that is not an executable.
require_tools() {
  local hint="$1" tool
  shift
  for tool; do
    [[ -x "$tool" ]] || { log "$BENCH: $tool is missing ($hint)"; exit 2; }
  done
  command -v curl >/dev/null || { log "$BENCH: curl is needed to talk to moto"; exit 2; }
}

# release_statectl: STATECTL as given, or this checkout's release build.
release_statectl() {
  if [[ -z "${STATECTL:-}" ]]; then
    log "$BENCH: cargo build --release"
    (cd "$ROOT" && cargo build --release >&2)
    STATECTL="$ROOT/target/release/statectl"
  fi
}

# start_moto WORK: moto's server on a free loopback port until the script exits (WORK removed then
# too); sets URL, and the AWS environment to its test credentials with no other source of them.
start_moto() {
  local work="$1" port
  port="$("$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
  "$MOTO" -H 127.0.0.1 -p "$port" >/dev/null 2>"$work/moto.log" &
  MOTO_PID=$!
  # shellcheck disable=SC2064 # the values are fixed now, on purpose
  trap "kill $MOTO_PID 2>/dev/null; wait $MOTO_PID 2>/dev/null; rm -rf '$work'" EXIT
  URL="http://127.0.0.1:$port"
  for _ in $(seq 100); do curl -s -o /dev/null "$URL" && break; sleep 0.1; done
  export AWS_ACCESS_KEY_ID=testing AWS_SECRET_ACCESS_KEY=testing AWS_EC2_METADATA_DISABLED=true
  export AWS_CONFIG_FILE="$work/none" AWS_SHARED_CREDENTIALS_FILE="$work/none" CHECKPOINT_DISABLE=1
}

# terraform_aws_tools: TERRAFORM, MIRROR (a filesystem mirror holding the AWS provider 3.39.0) and
# MOTO (with its PY) as the tests find them (the STATECTL_* variables .ci/run exports), else
# installed now by the scripts/ installers.
terraform_aws_tools() {
  TERRAFORM=${STATECTL_TERRAFORM:-$("$ROOT/scripts/install-terraform.sh" | tail -n 1)}
  MIRROR=${STATECTL_AWS_PROVIDER_MIRROR:-$("$ROOT/scripts/install-aws-provider.sh" | tail -n 2 | head -n 1)}
  MOTO=${STATECTL_MOTO_SERVER:-$("$ROOT/scripts/install-moto.sh" | tail -n 1)}
  PY="$(dirname "$MOTO")/python"
}

# mirror_cli_config FILE: a Terraform CLI configuration that installs hashicorp/aws from MIRROR only,
# exported as TF_CLI_CONFIG_FILE.
mirror_cli_config() {
  cat > "$1" <<TF
provider_installation {
  filesystem_mirror {
    path    = "$MIRROR"
    include = ["registry.terraform.io/hashicorp/aws"]
  }
}
TF
  export TF_CLI_CONFIG_FILE="$1"
}

# moto_cpu: the CPU seconds moto's server (MOTO_PID, all its threads) has used so far.
moto_cpu() {
  awk -v tick="$(getconf CLK_TCK)" '{ sub(/.*\) /, ""); printf "%.2f\n", ($12 + $13) / tick }' "/proc/$MOTO_PID/stat"
}

# timed NAME OK_CODES COMMAND...: runs it (stdout to OUT/NAME.out, stderr to OUT/NAME.err) under GNU
# time and prints "wall kb"; an exit code outside OK_CODES (e.g. "0 2") stops the bench. With moto
# running, the CPU seconds its server spent answering the command go to OUT/NAME.moto: the work
# any client reading the same objects has to wait for. The CPU seconds the command and the children it
# waited for (the provider plugins) spent go to OUT/NAME.cpu: the client's own work, apart from moto's.
timed() {
  local name="$1" ok="$2"; shift 2
  local code=0 before=""
  [[ -n "${MOTO_PID:-}" ]] && before=$(moto_cpu)
  /usr/bin/time -f '%e %M %U %S' -o "$OUT/time.out" "$@" > "$OUT/$name.out" 2> "$OUT/$name.err" || code=$?
  if [[ " $ok " != *" $code "* ]]; then log "$BENCH: $name exited $code, see $OUT/$name.err"; exit 1; fi
  [[ -n "$before" ]] && awk -v a="$before" -v b="$(moto_cpu)" 'BEGIN { printf "%.2f\n", b - a }' > "$OUT/$name.moto"
  # GNU time puts "Command exited with non-zero status N" first.
  tail -n 1 "$OUT/time.out" | awk -v cpu="$OUT/$name.cpu" '{ printf "%.2f\n", $3 + $4 > cpu; print $1, $2 }'
}
