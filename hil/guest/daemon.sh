# Helpers for the lifesignald scenarios: a config on the simulated chip, start/stop, queries.
SOCK=/run/lifesignal.sock
STORE=/tmp/lifesignal.sqlite
CONF=/tmp/lifesignald.toml

# write_config [extra TOML appended]: the chip and lines of the simulated board, store on tmpfs.
write_config() {
    cat > "$CONF" <<TOML
[gpio]
backend = "libgpiod"
chip = "$SIM_LABEL"

[button]
line = "GPIO$BUTTON"
debounce = "30ms"
long_press = "3s"

[store]
path = "$STORE"

[control]
socket = "$SOCK"

[simulator]
terminal = "off"
TOML
    [ $# -gt 0 ] && printf '%s\n' "$@" >> "$CONF"
    return 0
}

# lifesignalctl on the scenario's socket; a daemon that stops answering fails the check.
ctl() { command=$1; shift; timeout 10 lifesignalctl "$command" --socket "$SOCK" "$@"; }
# Starts the daemon in the background (pid in $DAEMON) and waits until it answers; shows its
# log if it does not.
start_daemon() {
    lifesignald --config "$CONF" >> /tmp/lifesignald.log 2>&1 & DAEMON=$!
    wait_for "ctl status" 20 && return 0
    echo "HIL: lifesignald did not answer; its log:"; tail -n 20 /tmp/lifesignald.log
    return 1
}
checkins() { ctl history --json --limit 1000 | grep -c '"id"'; }
indicator() { ctl status --json | sed -n 's/.*"indicator" *: *"\([a-z_]*\)".*/\1/p'; }
