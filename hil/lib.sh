# Shared helpers for the hil/ scripts. Source it; it sets `set -euo pipefail`.
set -euo pipefail

HIL_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_DIR=$(cd "$HIL_DIR/.." && pwd)
# Downloads and build products; gitignored, safe to delete (everything is fetched again).
CACHE_DIR=${HIL_CACHE:-$REPO_DIR/.hil-cache}
mkdir -p "$CACHE_DIR"

# Every line carries the minutes:seconds since the stage started (HIL_START, inherited by the
# helper scripts), so a CI log shows where the time goes.
export HIL_START=${HIL_START:-$(date +%s)}
elapsed() { local s=$(($(date +%s) - HIL_START)); printf '+%d:%02d' $((s / 60)) $((s % 60)); }
log() { printf '[hil %s] %s\n' "$(elapsed)" "$*" >&2; }
die() { printf '[hil %s] error: %s\n' "$(elapsed)" "$*" >&2; exit 1; }

# The newest version apt offers for a package (optionally restricted to versions matching a
# pattern): Debian's security suite drops old kernels, so never pin a version in a script.
# Prints nothing (and succeeds) when apt offers none, so that the caller can say what is missing.
candidate_version() { # package [version-regex]
    # (The pattern goes through the environment: awk -v would eat its backslashes.)
    apt-cache madison "$1" | pattern=${2:-.} awk -F'|' '{gsub(/ /,"",$2)} $2 ~ ENVIRON["pattern"] {print $2}' \
        | sort -V | tail -n1
}

# Downloads package=version into the cache once; prints the .deb path.
fetch_deb() { # package version
    local dir="$CACHE_DIR/debs" file
    mkdir -p "$dir"
    file=$(ls "$dir/${1}_${2//:/%3a}_"*.deb 2>/dev/null | head -n1 || true)
    if [[ -z "$file" ]]; then
        log "downloading $1 $2"
        (cd "$dir" && apt-get download -q "$1=$2" >/dev/null 2>&1) \
            || die "apt-get download $1=$2 failed (run hil/setup-host once, then apt-get update)"
        file=$(ls "$dir/${1}_${2//:/%3a}_"*.deb | head -n1)
    fi
    printf '%s\n' "$file"
}

require_tools() { # tool...
    local missing=()
    for tool in "$@"; do command -v "$tool" >/dev/null || missing+=("$tool"); done
    ((${#missing[@]} == 0)) || die "missing host tools: ${missing[*]} (run hil/setup-host as root)"
}
