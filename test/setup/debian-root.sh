#!/usr/bin/env bash
# A Debian release other than the system's, in a root filesystem of its own, for the interop tests: programs newer
# than the system's (bookworm: GDAL 3.6, PROJ 9.1.1), run with `chroot ROOT program ...` (test/interop/helpers.ts,
# chrootGdal). Nothing of that release is installed into the system. Two are made (test/run.sh):
#   trixie  gdal-bin, proj-bin, python3-pyproj: GDAL 3.10 for the GDAL interop tests, PROJ 9.6.0
#           (test/setup/gdal-trixie.sh)
#   sid     proj-bin, python3-pyproj: PROJ 9.9, the oracle of the exhaustive coordinates transform test
#           (test/setup/proj-sid.sh)
#
#   bash test/setup/debian-root.sh SUITE PACKAGES ROOT 'CHECK'
#
# PACKAGES: comma-separated. CHECK: a command line that must succeed in the root (run there with chroot).
# ROOT lives under /var/cache/tilemirror, not in the project: it survives `npm ci` and `git clean` and serves every
# clone and worktree on the machine, jest and tsc never walk it, and its device nodes and setuid programs stay out of
# the source tree; making and entering it needs root anyway.
#
# Idempotent: a complete ROOT (marked when done, with the same PACKAGES, and CHECK passing in it) is reused in well
# under a second. Otherwise it is made with mmdebstrap (variant essential + PACKAGES and their dependencies, no
# recommends, no docs, man pages or translations) from $TILEMIRROR_DEBIAN_MIRROR (default
# http://deb.debian.org/debian), in ROOT.partial, and moved to ROOT only once complete. A lock keeps two runs from
# making it at once. A Release file past its Valid-Until date is accepted (sid's often is on the mirrors reached
# here): the packages are still checked against the archive's signatures.
# Measured here: trixie about 119 MB downloaded, 366 MB on disk, 3 to 4 minutes on 2 busy cores.
# (debootstrap --variant=minbase --include=gdal-bin fails: its resolver cannot satisfy python3-gdal's
# dependency on the virtual python3-numpy2-abi0; debootstrap minbase then apt-get install took 325 s and
# 723 MB with apt's caches.)
#
# Exits non-zero with a message when it cannot (not root and no password-less sudo, no network, ...).
set -euo pipefail

(($# == 4)) || { echo "usage: debian-root.sh SUITE PACKAGES ROOT 'CHECK'" >&2; exit 2; }
SUITE="$1"
PACKAGES="$2"
ROOT="$3"
CHECK="$4"
MIRROR="${TILEMIRROR_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
READY="$ROOT/.tilemirror-root-ready"

say() { printf '[debian-root %s] %s\n' "$SUITE" "$*" >&2; }
die() { say "ERROR: $*"; exit 1; }

# Runs a program in ROOT: chroot as root, else in a user namespace where the kernel allows it (as the tests do).
enter() {
  if [[ "$(id -u)" == "0" ]]; then chroot "$ROOT" "$@"; else unshare --map-root-user chroot "$ROOT" "$@"; fi
}
usable() { "$@" sh -c "$CHECK"; } >/dev/null 2>&1
# Ready: marked complete for the same package list, and the check passes in it.
ready() { [[ -f "$READY" ]] && [[ "$(head -n1 "$READY")" == "$PACKAGES" ]] && usable enter; }

if ready; then
  say "reusing $ROOT: $(tail -n1 "$READY")"
  exit 0
fi

if [[ "$(id -u)" != "0" ]]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    exec sudo -n env TILEMIRROR_DEBIAN_MIRROR="$MIRROR" bash "${BASH_SOURCE[0]}" "$@"
  fi
  die "making $ROOT needs root (mmdebstrap): run 'sudo bash ${BASH_SOURCE[0]}'"
fi

mkdir -p "$(dirname "$ROOT")"
exec 9>"$ROOT.lock"
flock 9 || die "cannot lock $ROOT.lock"
# Another run may have made it while this one waited for the lock.
if ready; then
  say "reusing $ROOT: $(tail -n1 "$READY")"
  exit 0
fi

if ! command -v mmdebstrap >/dev/null 2>&1; then
  say "installing mmdebstrap (Debian package)"
  apt_install() { DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends mmdebstrap </dev/null; }
  apt_install || { apt-get update -qq </dev/null && apt_install; } || die "cannot install mmdebstrap with apt-get"
fi

# File systems mounted at or below a directory, deepest first.
mounts_below() { awk -v d="$1/" 'index($2 "/", d) == 1 { print length($2) "\t" $2 }' /proc/mounts | sort -rn | cut -f2-; }

# Removes a directory tree left by an earlier attempt: first unmounts what an interrupted mmdebstrap left
# mounted in it (/proc, /sys, /dev/pts), and never crosses into a file system still mounted below it.
remove_tree() {
  local dir="$1" m
  [[ -e "$dir" ]] || return 0
  while IFS= read -r m; do umount --lazy "$m" || true; done < <(mounts_below "$dir")
  [[ -z "$(mounts_below "$dir")" ]] || die "cannot unmount the file systems below $dir: $(mounts_below "$dir" | tr '\n' ' ')"
  rm -rf --one-file-system "$dir"
}

PARTIAL="$ROOT.partial"
remove_tree "$PARTIAL"
say "making $ROOT: Debian $SUITE with $PACKAGES from $MIRROR (a few minutes)"
start=$(date +%s)
if ! mmdebstrap --quiet --variant=essential --include="$PACKAGES" \
  --aptopt='APT::Install-Recommends "false"' --aptopt='Acquire::Languages "none"' \
  --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-exclude=/usr/share/man/*' \
  --dpkgopt='path-exclude=/usr/share/locale/*' --aptopt='Acquire::Check-Valid-Until "false"' \
  "$SUITE" "$PARTIAL" "$MIRROR" </dev/null; then
  die "mmdebstrap could not make Debian $SUITE with $PACKAGES in $PARTIAL (is $MIRROR reachable?)"
fi
usable chroot "$PARTIAL" || die "the check ($CHECK) fails in $PARTIAL"
version="$(chroot "$PARTIAL" sh -c "$CHECK" 2>&1 | tr '\n' ' ')"
printf '%s\n%s\n' "$PACKAGES" "$version" >"$PARTIAL/.tilemirror-root-ready"
remove_tree "$ROOT"
mv "$PARTIAL" "$ROOT"
say "made $ROOT in $(($(date +%s) - start)) s, $(du -sm "$ROOT" | cut -f1) MB: $version"
