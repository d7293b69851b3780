#!/usr/bin/env bash
# The action's last step: fails the job by the scan's exit code (STATECTL_EXIT_CODE), after the SARIF
# was uploaded. Tested outside GitHub by tests/integration/ci_github.rs.
set -euo pipefail

code="${STATECTL_EXIT_CODE:-}"
fail_on="${STATECTL_FAIL_ON:-warning}"
case "$code" in
  0)
    echo "statectl: no finding reached --fail-on $fail_on"
    ;;
  1)
    echo "::error title=statectl::findings reached --fail-on $fail_on: see the job summary and code scanning"
    exit 1
    ;;
  2)
    echo "::error title=statectl::a state could not be read, or an argument is wrong: see the scan step's log"
    exit 2
    ;;
  *)
    echo "::error title=statectl::the scan did not finish (exit code \`$code\`)"
    exit 2
    ;;
esac
