#!/usr/bin/env bash
# Builds LifeSignal Device from source on the device itself and installs it the way the Debian
# package does: binaries, systemd unit, udev rule, config (kept if already there), man pages,
# completions, the lifesignal user and gpio group; then enables and starts the service.
# The check-in database in /var/lib/lifesignal is never touched.
#
# Usage: sudo deploy/install.sh [--skip-build]
# Needs Swift 6.3 on the PATH and about 2 GiB of memory (RAM + swap) to build; see docs/deploy.md
# for a board with less (build a .deb elsewhere with scripts/build-deb and apt install it).
# Prefer the .deb when you can: `apt remove` then undoes everything this script does.
set -euo pipefail
cd "$(dirname "$0")/.."

skip_build=0
for argument in "$@"; do
    case "$argument" in
        --skip-build) skip_build=1 ;;
        -h|--help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "install.sh: unknown argument $argument (see --help)" >&2; exit 64 ;;
    esac
done
[ "$(id -u)" -eq 0 ] || { echo "install.sh: run as root (sudo deploy/install.sh)" >&2; exit 1; }

# The build runs as the user who called sudo, so the build folder is not owned by root.
as_builder=()
if [ -n "${SUDO_USER:-}" ] && [ "$SUDO_USER" != root ]; then as_builder=(sudo -u "$SUDO_USER" --preserve-env=PATH); fi

scripts/ensure-dependencies libsqlite3-0 libgpiod2 adduser
if ((!skip_build)); then
    "${as_builder[@]}" scripts/build-deb --output .build-release/install >/dev/null
else
    "${as_builder[@]}" scripts/build-deb --skip-build --output .build-release/install >/dev/null
fi
bin=$("${as_builder[@]}" swift build -c release --static-swift-stdlib --scratch-path .build-release --show-bin-path)

echo "== installing files"
install -m 0755 "$bin/lifesignald" "$bin/lifesignalctl" /usr/bin/
strip --strip-unneeded /usr/bin/lifesignald /usr/bin/lifesignalctl || true
install -D -m 0644 deploy/lifesignald.service /etc/systemd/system/lifesignald.service
install -D -m 0644 udev/60-lifesignal-gpio.rules /etc/udev/rules.d/60-lifesignal-gpio.rules
if [ -e /etc/lifesignal/lifesignald.toml ]; then
    install -D -m 0644 deploy/lifesignald.toml /etc/lifesignal/lifesignald.toml.new
    echo "kept /etc/lifesignal/lifesignald.toml; the shipped example is in lifesignald.toml.new"
else
    install -D -m 0644 deploy/lifesignald.toml /etc/lifesignal/lifesignald.toml
fi
manuals=.build-release/manuals
install -D -m 0644 /dev/stdin /usr/local/share/man/man8/lifesignald.8 < <(sed 's/^\.TH LIFESIGNALD 1/.TH LIFESIGNALD 8/' "$manuals/lifesignald.1")
install -D -m 0644 "$manuals/lifesignalctl.1" /usr/local/share/man/man1/lifesignalctl.1
install -D -m 0644 /dev/stdin /usr/share/bash-completion/completions/lifesignalctl < <(/usr/bin/lifesignalctl --generate-completion-script bash)
install -D -m 0644 /dev/stdin /usr/local/share/zsh/site-functions/_lifesignalctl < <(/usr/bin/lifesignalctl --generate-completion-script zsh)
install -D -m 0644 /dev/stdin /usr/share/fish/vendor_completions.d/lifesignalctl.fish < <(/usr/bin/lifesignalctl --generate-completion-script fish)

# The same steps as the package's maintainer script: users, groups, udev, enable and start.
echo "== user, groups, udev, systemd"
sh deploy/debian/postinst configure ""
echo "Installed. Check it with: sudo lifesignalctl doctor"
