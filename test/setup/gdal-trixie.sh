#!/usr/bin/env bash
# Debian trixie's gdal-bin (GDAL 3.10), proj-bin and python3-pyproj (PROJ 9.6.0) in a root filesystem of its own,
# for the GDAL interop tests (test/interop/helpers.ts, chrootGdal). See debian-root.sh.
#
#   bash test/setup/gdal-trixie.sh [ROOT]      ROOT: $TILEMIRROR_GDAL_TRIXIE_ROOT, else /var/cache/tilemirror/gdal-trixie
set -euo pipefail
exec bash "$(dirname "${BASH_SOURCE[0]}")/debian-root.sh" trixie gdal-bin,proj-bin,python3-pyproj \
  "${1:-${TILEMIRROR_GDAL_TRIXIE_ROOT:-/var/cache/tilemirror/gdal-trixie}}" \
  "gdalinfo --version && projinfo -q -o PROJ EPSG:4326 >/dev/null && python3 -c 'import pyproj; print(\"PROJ\", pyproj.proj_version_str)'"
