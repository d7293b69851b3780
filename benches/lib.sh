# Shared by the benchmark scripts that read states from moto's S3 on loopback (sourced, after the
# script sets BENCH, its name in messages): where things are, the release binary, the tools'
# presence, moto's server for the run.

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="$ROOT/target/bench"
mkdir -p "$OUT"
MOTO="${MOTO_SERVER:-$ROOT/target/moto/venv/bin/moto_server}"
# moto's venv has boto3, for the untimed uploads.
PY="$(dirname "$MOTO")/python"

log() { printf '%s\n' "$*" >&2; }

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
