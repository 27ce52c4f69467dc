# SPDX-License-Identifier: GPL-3.0-or-later (see foam/README.md)
# Sourced by the foam tests: skips (exit 77) where the plugin was not built
# or OpenFOAM is not installed, loads OpenFOAM's environment, and gives
# helpers to copy a tutorial and switch its solvers.
set -euo pipefail
if [ -z "${CMRS_FOAM_LIB:-}" ] || [ ! -f "${CMRS_FOAM_LIB}" ]; then
  echo "SKIP: libcmrsFoam.so was not built (OpenFOAM not found at configure time)"
  exit 77
fi
FOAM_BASHRC=${FOAM_BASHRC:-/usr/share/openfoam/etc/bashrc}
if [ ! -f "$FOAM_BASHRC" ] || ! command -v icoFoam >/dev/null; then
  echo "SKIP: OpenFOAM is not installed ($FOAM_BASHRC, icoFoam)"
  exit 77
fi
set +eu
# (Debian's bashrc looks for helper scripts it does not ship: noise only.)
. "$FOAM_BASHRC" >/dev/null 2>&1
set -eu
export LD_LIBRARY_PATH="$(dirname "$CMRS_FOAM_LIB")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
FOAM_TUTORIALS=${FOAM_TUTORIALS_DIR:-/usr/share/doc/openfoam-examples/examples}
FOAM_TESTS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/cmrs-foam.XXXXXX")
trap 'rm -rf "$work"' EXIT

# copy_case SRC DEST: a tutorial case, meshed, with the plugin loaded.
copy_case() {
  cp -r "$1" "$2"
  chmod -R u+w "$2"
  foamDictionary -case "$2" -entry libs -add '("libcmrsFoam.so")' \
    "$2/system/controlDict" >/dev/null
  blockMesh -case "$2" >"$2/log.blockMesh" 2>&1
}

# set_entry CASE FILE ENTRY VALUE (foamDictionary syntax: solvers/p).
set_entry() {
  foamDictionary -case "$1" -entry "$3" -set "$4" "$1/system/$2" >/dev/null
}

# p_iterations LOG: the sum of "No Iterations" of the p solves.
p_iterations() {
  grep "Solving for p," "$1" | sed 's/.*No Iterations //' |
    awk '{s += $1} END {print s + 0}'
}
