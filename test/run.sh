#!/usr/bin/env bash
# The test command (`npm test`): makes sure everything the suite needs is present, then runs jest.
#
#   bash test/run.sh [jest arguments...]      e.g. bash test/run.sh test/interop -t GDAL
#
# 1. Real clients the interop tests drive and the browser of test/e2e (Debian packages, installed once with
#    apt-get when missing); tileserver-gl-light from npm into .bench/tileserver (once, ~5 min on 2 busy cores:
#    sqlite3 builds from source; ~160 MB), the upstream of test/interop/tileserver-upstream.interop.test.ts.
# 2. node_modules (npm ci when missing), dist/ (npm run build when missing or older than src/),
#    the bundled sample in mirror/ (npm run sample when missing or older than its builder), the derived
#    indexes in dist/indexes (npm run indexes: skipped by each builder when current).
# 3. jest, with the arguments passed through.
#
# Safe to run repeatedly: when everything is present it goes straight to jest.
# With CI=true (or TILEMIRROR_REQUIRE_CLIENTS=1) a client that cannot be installed fails the run;
# otherwise the tests that need it are skipped with a message.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

# ---------------------------------------------------------------------------------------------
# What the suite needs from the system. Add new clients here (one place):
#   APT_PACKAGES  Debian packages, installed with apt-get when one is missing
#   CHECKS        "what|command that succeeds when it is usable", verified after installing
# ---------------------------------------------------------------------------------------------
APT_PACKAGES=(
  gdal-bin          # gdalinfo, gdal_translate: WMTS, OGCAPI and MBTiles drivers
  python3-gdal      # osgeo bindings for /usr/bin/python3
  python3-owslib    # OWSLib WebMapTileService
  libxml2-utils     # xmllint --schema
  python3-mapproxy  # the WMTS 1.0 / OWS 1.1 XSDs used offline by xmllint; MapProxy itself as a mirror upstream
  chromium          # /usr/bin/chromium, driven by playwright-core in test/e2e (no browser download)
  python3-pyproj    # PROJ through /usr/bin/python3: the oracle of the coordinates tests
  proj-bin          # cs2cs, projinfo: PROJ's own command line, for the same
  proj-data         # BETA2007.gsb: a grid file for the coordinates.gridDir test
  nginx-light       # /usr/sbin/nginx in front of two instances (docker/nginx.conf) in the topology test
  redis-server      # the lock service of the scheduled jobs across instances, in the same test
  python3-qgis      # QGIS 3.22 for /usr/bin/python3: its WMS/WMTS provider, Browser and Add Layer dialog (~190 MB of .debs, ~900 MB on disk)
)
CHECKS=(
  "gdal_translate|command -v gdal_translate"
  "gdalinfo|command -v gdalinfo"
  "gdallocationinfo (the elevation test reads terrain pixels with it)|command -v gdallocationinfo"
  "xmllint|command -v xmllint"
  "OWSLib under /usr/bin/python3|/usr/bin/python3 -c 'import owslib.wmts'"
  "GDAL python bindings|/usr/bin/python3 -c 'from osgeo import gdal'"
  "chromium|/usr/bin/chromium --version"
  "pyproj under /usr/bin/python3|/usr/bin/python3 -c 'import pyproj'"
  "cs2cs|command -v cs2cs"
  "PROJ grid BETA2007.gsb (proj-data)|test -f /usr/share/proj/BETA2007.gsb"
  "MapProxy under /usr/bin/python3|/usr/bin/python3 -c 'import mapproxy.wsgiapp'"
  "nginx|test -x /usr/sbin/nginx || command -v nginx"
  "redis-server|command -v redis-server"
  "QGIS python bindings and its WMS/WMTS provider|/usr/bin/python3 -c 'import qgis.core, qgis.gui' && test -f /usr/lib/qgis/plugins/libprovider_wms.so"
  "GDAL >= 3.8 of Debian trixie (chroot)|r=\"${TILEMIRROR_GDAL_TRIXIE_ROOT:-/var/cache/tilemirror/gdal-trixie}\"; chroot \"\$r\" gdalinfo --version || unshare --map-root-user chroot \"\$r\" gdalinfo --version"
  "PROJ 9.9 of Debian sid (chroot)|r=\"${TILEMIRROR_PROJ_SID_ROOT:-/var/cache/tilemirror/proj-sid}\"; chroot \"\$r\" python3 -c 'import pyproj' || unshare --map-root-user chroot \"\$r\" python3 -c 'import pyproj'"
  "tileserver-gl-light in .bench/tileserver|test -f .bench/tileserver/node_modules/tileserver-gl-light/src/main.js"
  "WMTS 1.0 XSD|test -f /usr/share/python3-mapproxy/test/schemas/wmts/1.0/wmtsGetCapabilities_response.xsd || dpkg -L python3-mapproxy 2>/dev/null | grep -q wmtsGetCapabilities_response.xsd"
)

CI="${CI:-}"
if [[ "$CI" == "true" ]]; then
  export TILEMIRROR_REQUIRE_CLIENTS="${TILEMIRROR_REQUIRE_CLIENTS:-1}"
fi
REQUIRE="${TILEMIRROR_REQUIRE_CLIENTS:-}"
[[ "$REQUIRE" == "0" || "$REQUIRE" == "false" ]] && REQUIRE=""

# GDAL would otherwise cache WMTS/OGC API tiles in ./gdalwmscache and answer later runs from it.
export GDAL_ENABLE_WMS_CACHE=NO

say() { printf '[test/run.sh] %s\n' "$*" >&2; }
die() { say "ERROR: $*"; exit 1; }

# ---------------------------------------------------------------------------------------------
# 1. System packages
# ---------------------------------------------------------------------------------------------
missing_packages() {
  local p
  for p in "${APT_PACKAGES[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
      printf '%s\n' "$p"
    fi
  done
}

install_packages() {
  local -a missing
  mapfile -t missing < <(missing_packages)
  ((${#missing[@]} == 0)) && return 0

  local -a sudo=()
  if [[ "$(id -u)" != "0" ]]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
      sudo=(sudo -n)
    else
      say "missing Debian packages: ${missing[*]} (not root and no password-less sudo; install them by hand)"
      return 1
    fi
  fi
  say "installing Debian packages: ${missing[*]}"
  local apt_env=(env DEBIAN_FRONTEND=noninteractive)
  # One `apt-get update` per run, and only when something has to be installed.
  "${sudo[@]}" "${apt_env[@]}" apt-get update -qq </dev/null || return 1
  "${sudo[@]}" "${apt_env[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" </dev/null || return 1
}

if command -v dpkg-query >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
  if ! install_packages; then
    [[ -n "$REQUIRE" ]] && die "could not install the Debian packages the interop and browser tests need"
    say "WARNING: could not install some Debian packages; the tests needing them will be skipped"
  fi
else
  say "no apt-get here: install the equivalents of ${APT_PACKAGES[*]} by hand"
fi

# GDAL >= 3.8 for the OGC API tests that read a collection's extent: Debian trixie's gdal-bin in a root filesystem
# of its own, run with chroot (the system keeps its release's GDAL). Made once, then reused.
if ! bash test/setup/gdal-trixie.sh </dev/null; then
  [[ -n "$REQUIRE" ]] && die "could not make Debian trixie's GDAL (test/setup/gdal-trixie.sh)"
  say "WARNING: no Debian trixie GDAL; the OGC API tests of GDAL >= 3.8 will be skipped"
fi

# PROJ 9.9, the newest in Debian, for the exhaustive coordinates transform test's oracle: Debian sid's proj-bin and
# python3-pyproj in a root filesystem of their own (about 60 MB to download, 170 MB on disk, 1.5 minutes).
if ! bash test/setup/proj-sid.sh </dev/null; then
  [[ -n "$REQUIRE" ]] && die "could not make Debian sid's PROJ (test/setup/proj-sid.sh)"
  say "WARNING: no Debian sid PROJ; the exhaustive coordinates transform test will be skipped"
fi

# tileserver-gl-light 5 from npm into .bench/tileserver (gitignored; not a project dependency), as the benchmarks'
# anchor does (bench/lib/anchors.js): installed once, then only checked.
if ! node -e "process.exit(require('./bench/lib/anchors').ensureTileserver().main ? 0 : 1)" </dev/null; then
  [[ -n "$REQUIRE" ]] && die "could not install tileserver-gl-light into .bench/tileserver"
  say "WARNING: no tileserver-gl-light in .bench/tileserver; its interop test will be skipped"
fi

missing_checks=()
for c in "${CHECKS[@]}"; do
  if ! bash -c "${c#*|}" >/dev/null 2>&1; then missing_checks+=("${c%%|*}"); fi
done
if ((${#missing_checks[@]})); then
  msg="clients not usable: ${missing_checks[*]}"
  [[ -n "$REQUIRE" ]] && die "$msg (required: CI=true or TILEMIRROR_REQUIRE_CLIENTS is set)"
  say "WARNING: $msg; their tests will be skipped"
fi

# ---------------------------------------------------------------------------------------------
# 2. node_modules, dist/, the bundled sample
# ---------------------------------------------------------------------------------------------
# True when any file under the given paths is newer than $1 (or $1 is missing).
newer_than() {
  local target="$1"; shift
  [[ -e "$target" ]] || return 0
  [[ -n "$(find "$@" -newer "$target" -type f -print -quit 2>/dev/null)" ]]
}

if [[ ! -d node_modules ]] || [[ ! -e node_modules/.package-lock.json ]]; then
  say "node_modules missing: npm ci"
  if ! npm ci --no-audit --no-fund </dev/null; then
    # e.g. a registry mirror without other platforms' optional packages makes npm ci call the lock "out of sync"
    say "WARNING: npm ci failed; installing from the lock with npm install --no-save"
    npm install --no-audit --no-fund --no-save </dev/null
  fi
fi

# The one build of the run: the tests that run the CLI as a child process assume dist/ is current
# (test/helpers/dist.ts) and never rebuild it themselves (two jest workers would race). The console's script is
# built by the same command (tsconfig.console.json) into dist/console: a `tsc -p tsconfig.json` alone leaves it old.
if newer_than dist/cli.js src tsconfig.json package.json || newer_than dist/console/console.js src tsconfig.console.json package.json; then
  say "dist/ missing or older than src/: npm run build"
  npm run --silent build </dev/null
fi
[[ -f dist/cli.js ]] || die "dist/cli.js is missing after the build"
[[ -f dist/console/console.js ]] || die "dist/console/console.js is missing after the build"

SAMPLE_STORES=(
  mirror/maps/sample.mbtiles
  mirror/tiles/sample-vector.mbtiles
  mirror/tiles/sample-terrain.mbtiles
  mirror/images/sample-image.mbtiles
  "mirror/fonts/Noto Sans Regular.mbtiles"
  mirror/sprites/sample.mbtiles
  mirror/data/sample-countries.mbtiles
  mirror/tiles/sample-temperature-0000.mbtiles
  mirror/tiles/sample-temperature-0600.mbtiles
  mirror/weather/latest.mbtiles
  mirror/tiles/sample-city.mbtiles
)
# `npm run sample` rebuilds only what is out of date (and leaves up-to-date stores untouched), so it runs
# when a store is missing or its builder (dist/sample) changed since the last check, recorded by a stamp.
SAMPLE_STAMP=node_modules/.cache/tilemirror/sample-checked
sample_outdated() {
  local s
  for s in "${SAMPLE_STORES[@]}"; do [[ -s "$s" ]] || return 0; done
  [[ -d dist/sample ]] && newer_than "$SAMPLE_STAMP" dist/sample && return 0
  return 1
}
if sample_outdated; then
  say "bundled sample missing or its builder changed: npm run sample"
  npm run --silent sample </dev/null
  mkdir -p "$(dirname "$SAMPLE_STAMP")" && touch "$SAMPLE_STAMP"
fi

# The derived indexes (EPSG registry, gazetteer) in dist/indexes: each builder skips work when its file was
# built from the same npm data, so this is quick when they are current.
npm run --silent indexes </dev/null

# ---------------------------------------------------------------------------------------------
# 3. jest
# ---------------------------------------------------------------------------------------------
# ts-jest runs with isolatedModules (no type checking): check the tests' types once here.
say "type-checking src/ and test/"
npx --no-install tsc -p test/tsconfig.json --noEmit </dev/null
npx --no-install tsc -p tsconfig.console.json --noEmit </dev/null

exec npx --no-install jest "$@"
