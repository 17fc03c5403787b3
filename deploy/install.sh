#!/usr/bin/env bash
# Builds LifeSignal Device from source on the device itself and installs it exactly as the Debian
# package does — because it builds that package (scripts/build-deb) and installs it with apt:
# binaries, systemd unit, udev rule, config (your edits kept), man pages, completions, the
# lifesignal user and gpio group; the service is enabled and started. `sudo apt remove
# lifesignal-device` undoes it; the check-in database in /var/lib/lifesignal is never touched.
#
# Usage: sudo deploy/install.sh [--skip-build]
#   --skip-build  package what is already built in .build-release
# Needs Swift 6.3 on the PATH and about 2 GiB of memory (RAM + swap) to build; docs/deploy.md says
# what to do on a board with less (cross-build the .deb elsewhere).
set -euo pipefail
cd "$(dirname "$0")/.."

build_args=()
for argument in "$@"; do
    case "$argument" in
        --skip-build) build_args+=(--skip-build) ;;
        -h|--help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "install.sh: unknown argument $argument (see --help)" >&2; exit 64 ;;
    esac
done
[ "$(id -u)" -eq 0 ] || { echo "install.sh: run as root (sudo deploy/install.sh)" >&2; exit 1; }

# Build as the user who called sudo, so the build folders are not owned by root.
as_builder=()
if [ -n "${SUDO_USER:-}" ] && [ "$SUDO_USER" != root ]; then
    as_builder=(sudo -u "$SUDO_USER" --preserve-env=PATH,LIFESIGNAL_VERSION)
fi

scripts/ensure-dependencies binutils
deb=$("${as_builder[@]}" scripts/build-deb "${build_args[@]}" --output .build-release/packages | tail -1)
echo "== installing $deb"
# apt resolves the runtime dependencies (libsqlite3-0, libgpiod, adduser) and runs the package's
# maintainer scripts: user, groups, udev reload, enable and start.
apt-get install -y --no-install-recommends "./$deb"
echo "Installed. Check it with: sudo lifesignalctl doctor"
