# The benchmark scripts' one flag parser (sourced before the script reads its arguments).

# parse_flags NAME HELP_LINES SPEC... -- ARG...: sets variables from the script's flags.
# A SPEC `--flag=VAR` takes the next argument as VAR's value; `--flag=VAR:VALUE` takes none and sets
# VAR to VALUE. -h/--help prints the script's header comment (HELP_LINES, a sed range such as 2,12)
# and exits 0; an unknown flag or a missing value is one line on stderr naming the script, exit 2.
parse_flags() {
  local name="$1" help="$2" spec
  shift 2
  local -A takes=() sets=()
  while (($#)) && [[ "$1" != -- ]]; do
    spec="${1#*=}"
    if [[ "$spec" == *:* ]]; then sets["${1%%=*}"]="$spec"; else takes["${1%%=*}"]="$spec"; fi
    shift
  done
  shift
  while (($#)); do
    case "$1" in
      -h|--help) sed -n "${help}p" "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    esac
    if [[ -n "${sets[$1]:-}" ]]; then
      printf -v "${sets[$1]%%:*}" '%s' "${sets[$1]#*:}"
      shift
    elif [[ -n "${takes[$1]:-}" ]]; then
      (($# >= 2)) || { echo "$name: $1 needs a value (try --help)" >&2; exit 2; }
      printf -v "${takes[$1]}" '%s' "$2"
      shift 2
    else
      echo "$name: unknown argument \`$1\` (try --help)" >&2
      exit 2
    fi
  done
}
