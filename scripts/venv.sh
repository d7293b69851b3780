# Sourced by the install scripts whose tool is a Python package: `venv_with VENV PACKAGE VERSION
# [SPEC]` makes VENV a venv holding PACKAGE at exactly VERSION (SPEC: what pip installs, such as
# `moto[server]`; default PACKAGE), and does nothing when it already does. Progress on stderr, so
# that a script's stdout stays the paths it reports.
venv_with() {
    local venv="$1" package="$2" version="$3" spec="${4:-$2}"
    if ! "$venv/bin/python" -c 'import sys, importlib.metadata as m; sys.exit(m.version(sys.argv[1]) != sys.argv[2])' \
            "$package" "$version" 2>/dev/null; then
        echo "installing $spec==$version into $venv" >&2
        "${PYTHON:-python3}" -m venv "$venv"
        "$venv/bin/pip" install --quiet --disable-pip-version-check "$spec==$version" >&2
    fi
}

# `python_tool NAME PACKAGE VERSION`: for a tool that is only a Python package, the venv
# target/NAME/venv (from the checkout's root, where the install scripts run) made by `venv_with`,
# and its python printed on stdout, the path the install script reports.
python_tool() {
    local venv
    venv="$(pwd)/target/$1/venv"
    venv_with "$venv" "$2" "$3"
    echo "$venv/bin/python"
}
