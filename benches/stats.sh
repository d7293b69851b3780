# The benchmark scripts' one median (sourced). A script that wants a fixed number of decimals sets
# MEDIAN_DECIMALS before it calls median; unset, awk's own shortest spelling is printed.

# median VALUE...: the middle value, or the mean of the two middle ones.
median() {
  printf '%s\n' "$@" | sort -g | awk -v decimals="${MEDIAN_DECIMALS:-}" '{ v[NR] = $1 } END {
    m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
    if (decimals == "") print m; else printf "%." decimals "f", m }'
}
