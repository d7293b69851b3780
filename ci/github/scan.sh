#!/usr/bin/env bash
# The action's scan step: runs `statectl scan` on STATECTL_STATES (separated by spaces or line
# breaks) and writes
# - the SARIF report to "$RUNNER_TEMP/statectl.sarif" (the next step uploads it to code scanning),
# - the Markdown report to the job summary ($GITHUB_STEP_SUMMARY) when STATECTL_SUMMARY is true,
# - annotations to the log (`--format github`) when STATECTL_ANNOTATIONS is true,
# - `exit-code` and `sarif-file` to the step's outputs ($GITHUB_OUTPUT).
# It exits 0 whatever was found (so the SARIF is still uploaded); the last step fails the job by the
# exit code. Tested outside GitHub by tests/integration/ci_github.rs.
set -euo pipefail

fail_on="${STATECTL_FAIL_ON:-warning}"
case "$fail_on" in
  error | warning | note | never) ;;
  *)
    echo "::error title=statectl::fail-on must be error, warning, note or never, not \`${fail_on//%/%25}\`"
    exit 2
    ;;
esac

# Paths with spaces are not supported: states and arguments are separated by white space, as a
# workflow's multi-line inputs are written. No glob expansion: a `*` goes to statectl as written.
set -f
read -r -d '' -a states <<<"${STATECTL_STATES:-.}" || true
read -r -d '' -a extra <<<"${STATECTL_ARGS:-}" || true
set +f
if [[ ${#states[@]} -eq 0 ]]; then
  states=(.)
fi

statectl="${STATECTL_BIN:-statectl}"
scan=("$statectl" scan "${states[@]}" --fail-on "$fail_on" ${extra[@]+"${extra[@]}"})

sarif="${RUNNER_TEMP:-${TMPDIR:-/tmp}}/statectl.sarif"
code=0
"${scan[@]}" --format sarif >"$sarif" || code=$?

if [[ "${STATECTL_SUMMARY:-true}" == "true" && -n "${GITHUB_STEP_SUMMARY:-}" ]]; then
  "${scan[@]}" --format markdown >>"$GITHUB_STEP_SUMMARY" 2>/dev/null || true
fi
if [[ "${STATECTL_ANNOTATIONS:-true}" == "true" ]]; then
  "${scan[@]}" --format github 2>/dev/null || true
fi

if [[ -n "${GITHUB_OUTPUT:-}" ]]; then
  {
    echo "exit-code=$code"
    echo "sarif-file=$sarif"
  } >>"$GITHUB_OUTPUT"
fi
