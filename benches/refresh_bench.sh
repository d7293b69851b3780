#!/usr/bin/env bash
# Benchmark of `statectl refresh` against the provider simulator (statectl-sim) on loopback.
#
# This script owns the refresh benchmark: it builds both binaries, generates a state of N stale Cloud
# Foundry service instances (last_operation "in progress") and a scenario where each answers
# "succeeded" with 20 ms of latency, runs `statectl refresh --parallelism 64` and compares its wall
# time with the concurrency bound (requests x latency / parallelism), then runs again with 10% 503 and
# 5% 429 (Retry-After: 1) injected and checks every instance still ends reconciled. Markdown on
# stdout; progress on stderr.
#
#   benches/refresh_bench.sh [--instances N] [--parallelism P] [--runs R]
set -euo pipefail

N=10000
P=64
RUNS=3
# shellcheck source=benches/flags.sh
source "$(dirname "${BASH_SOURCE[0]}")/flags.sh"
parse_flags "refresh_bench" 2,12 --instances=N --parallelism=P --runs=RUNS -- "$@"

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="$ROOT/target/bench/refresh"
mkdir -p "$OUT"
log() { printf '%s\n' "$*" >&2; }

log "refresh_bench: cargo build --release"
(cd "$ROOT" && cargo build --release --bins >&2)
STATECTL="$ROOT/target/release/statectl"
SIM="$ROOT/target/release/statectl-sim"

log "refresh_bench: generating $N stale instances"
python3 - "$N" "$OUT" <<'PY'
import json, sys, uuid
n, out = int(sys.argv[1]), sys.argv[2]
instances, scenario = [], ['[cf]\ntoken = "bench-token"\n']
for i in range(n):
    guid = str(uuid.UUID(int=i + 1))
    instances.append({
        "index_key": i,
        "schema_version": 0,
        "attributes": {
            "id": guid, "name": f"db-{i}", "type": "managed",
            "last_operation": {"created_at": "2026-11-22T07:00:00Z", "description": "", "state": "in progress",
                               "type": "create", "updated_at": "2026-11-22T07:00:00Z"},
        },
        "sensitive_attributes": [],
    })
    scenario.append(f'[[cf.service_instance]]\nguid = "{guid}"\nname = "db-{i}"\nlast_operation_type = "create"\nlifecycle = ["succeeded"]\n')
state = {"version": 4, "terraform_version": "1.15.5", "serial": 1, "lineage": "bench-refresh",
         "outputs": {}, "resources": [{"mode": "managed", "type": "cloudfoundry_service_instance", "name": "db",
         "provider": "provider[\"registry.terraform.io/cloudfoundry/cloudfoundry\"]", "instances": instances}],
         "check_results": None}
with open(f"{out}/state.tfstate", "w") as f:
    json.dump(state, f, indent=2); f.write("\n")
body = "".join(scenario)
with open(f"{out}/clean.toml", "w") as f:
    f.write('[faults]\nseed = 1\nlatency = "20ms"\n\n' + body)
with open(f"{out}/faulty.toml", "w") as f:
    f.write('[faults]\nseed = 1\nlatency = "20ms"\nrate_503 = 0.10\nrate_429 = 0.05\nretry_after = 1\n\n' + body)
with open(f"{out}/profiles.toml", "w") as f:
    f.write('''# The built-in Cloud Foundry profile with limits wide enough for the benchmark's parallelism.
[[profile]]
type = "cloudfoundry_service_instance"
extends = "cloudfoundry_service_instance"
[profile.limits]
concurrency = 1000
per_host = 1000
''')
PY

# shellcheck source=benches/stats.sh
source "$ROOT/benches/stats.sh"

# run SCENARIO: starts the simulator, refreshes every instance once, prints "wall rss requests reconciled".
run() {
  local scenario="$1" port sim_pid
  "$SIM" --scenario "$OUT/$scenario" > "$OUT/sim.out" &
  sim_pid=$!
  for _ in $(seq 100); do grep -q listening "$OUT/sim.out" 2>/dev/null && break; sleep 0.05; done
  port="$(grep -o '127.0.0.1:[0-9]*' "$OUT/sim.out")"
  local t0 t1
  t0="$(date +%s.%N)"
  CF_ACCESS_TOKEN=bench-token /usr/bin/time -f '%M' -o "$OUT/time.out" "$STATECTL" refresh "$OUT/state.tfstate" \
    --profiles "$OUT/profiles.toml" --endpoint "cf=http://$port" --parallelism "$P" --timeout 5m --format json \
    > "$OUT/refresh.json" 2> "$OUT/refresh.err" || true
  t1="$(date +%s.%N)"
  local requests
  requests="$(curl -s "http://$port/_sim/stats" | python3 -c 'import json,sys; print(json.load(sys.stdin)["requests"])')"
  kill "$sim_pid"; wait "$sim_pid" 2>/dev/null || true
  local reconciled
  reconciled="$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(sum(1 for i in d["instances"] if i["outcome"]=="reconciled"))' "$OUT/refresh.json")"
  echo "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }') $(tail -n1 "$OUT/time.out") $requests $reconciled"
}

echo "| scenario | instances | parallelism | requests | bound (s) | median wall (s) | wall / bound | reconciled | peak RSS (MB) |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
for scenario in clean.toml faulty.toml; do
  walls=() rss=() requests=0 reconciled=0
  for ((i = 1; i <= RUNS; i++)); do
    read -r wall kb requests reconciled < <(run "$scenario")
    log "refresh_bench: $scenario run $i: ${wall}s, ${kb} KB, $requests requests, $reconciled reconciled"
    walls+=("$wall"); rss+=("$kb")
  done
  wall="$(median "${walls[@]}")"
  bound="$(awk -v r="$requests" -v p="$P" 'BEGIN { printf "%.3f", r * 0.020 / p }')"
  ratio="$(awk -v w="$wall" -v b="$bound" 'BEGIN { printf "%.2f", w / b }')"
  mb="$(awk -v k="$(median "${rss[@]}")" 'BEGIN { printf "%.1f", k / 1024 }')"
  echo "| ${scenario%.toml} | $N | $P | $requests | $bound | $wall | $ratio | $reconciled | $mb |"
done
echo
echo "_bound = requests x 20 ms / parallelism; $RUNS runs per scenario, medians; 2 vCPUs, simulator and statectl on the same machine._"
