#!/usr/bin/env bash
# Debian sid's proj-bin and python3-pyproj (PROJ 9.9, the newest PROJ in Debian) in a root filesystem of its own:
# the oracle of the exhaustive coordinates transform test (test/interop/coordinates-transform-every-crs.interop.test.ts).
# See debian-root.sh.
#
#   bash test/setup/proj-sid.sh [ROOT]      ROOT: $TILEMIRROR_PROJ_SID_ROOT, else /var/cache/tilemirror/proj-sid
set -euo pipefail
exec bash "$(dirname "${BASH_SOURCE[0]}")/debian-root.sh" sid proj-bin,python3-pyproj \
  "${1:-${TILEMIRROR_PROJ_SID_ROOT:-/var/cache/tilemirror/proj-sid}}" \
  "projinfo -q -o PROJ EPSG:4326 >/dev/null && python3 -c 'import pyproj; print(\"PROJ\", pyproj.proj_version_str, \"pyproj\", pyproj.__version__)'"
