# Helpers for the latency scenarios (sourced): the five responders on the simulated board, each
# started the same way and driven by the same driver. The daemon's acknowledgement is a steady red
# (GPIO13) for 200 ms, as the references' is, and its debounce 0 (the references have none).
. /hil/daemon.sh
PULL=$SIM/sim_gpio$BUTTON/pull ACK_LED=$SIM/sim_gpio13/value
# answer_line RESPONDER: the LED line whose change answers a press (the probe mirrors the button on
# GPIO5; the others acknowledge a stored check-in on the red GPIO13).
answer_line() { if [ "$1" = probe ]; then echo 5; else echo 13; fi; }
write_config '[feedback]' 'acknowledgement = "200ms"' '[patterns.acknowledged]' 'red = "on"'
sed -i 's|debounce = "30ms"|debounce = "0ms"|' "$CONF"
# The floor's and the references' stores, next to the daemon's.
STORE_FLOOR=/tmp/press-floor.sqlite STORE_C=/tmp/reference-c.sqlite STORE_PYTHON=/tmp/reference-python.sqlite
PYTHON_SITE=/usr/lib/python3/dist-packages

# start_<responder>: starts it (pid in $pid), returns once it holds its lines.
start_probe() {
    lifesignal-gpio-probe --chip "$SIM_LABEL" --button GPIO$BUTTON --leds GPIO5 --debounce-ms 0 > /tmp/out 2>&1 & pid=$!
    wait_for "grep -q 'probe: ready' /tmp/out" 10
}
DAEMON_STARTS=0
start_daemon_checked_in() {
    start_daemon && DAEMON_STARTS=$((DAEMON_STARTS + 1)) || return 1
    pid=$DAEMON
    # The first start has no check-in yet (amber): one press makes it show checked in (green), so
    # the red LED is at rest whenever a timed press begins. Later starts find it stored.
    [ "$DAEMON_STARTS" -gt 1 ] || { press; usleep 100000; release; }
    wait_for '[ "$(leds)" = 100 ]' 5
}
start_floor() {
    lifesignal-press-floor --chip "$SIM_LABEL" --button GPIO$BUTTON --led GPIO13 --store "$STORE_FLOOR" > /tmp/out 2>&1 & pid=$!
    wait_for "grep -q 'press-floor: ready' /tmp/out" 30
}
start_reference() { # store command...
    store=$1; shift
    "$@" "/dev/$SIM_CHIP" GPIO$BUTTON GPIO13 "$store" > /tmp/out 2>&1 & pid=$!
    wait_for "grep -q 'press-reference: ready' /tmp/out" 30
}
start_C() { start_reference "$STORE_C" press-reference; }
# (Through env, which execs: $pid must be Python's own, to stop it and to read its threads.)
start_Python() { start_reference "$STORE_PYTHON" env PYTHONPATH=$PYTHON_SITE python3 -S /hil/press-reference.py; }

# stop: stops the responder started last.
stop() { kill -TERM $pid 2>/dev/null; wait $pid 2>/dev/null; }
start() { # responder
    if [ "$1" = daemon ]; then start_daemon_checked_in; else "start_$1"; fi
}
# drive RESPONDER PRESSES WARMUP [SAMPLES [STARTS]]: presses as the responder answers them (the
# probe mirrors the button: timed from the press; the others from the release), times kept in
# SAMPLES, each timed press's start (CLOCK_MONOTONIC, ns) in STARTS.
# A responder that stops answering leaves its LEDs and its last output in the log.
drive() {
    if [ "$1" = probe ]; then
        sim-button latency "$PULL" "$SIM/sim_gpio$(answer_line probe)/value" "$2" "$3" 10 10 press $4 $5
    else
        sim-button latency "$PULL" "$ACK_LED" "$2" "$3" 50 20 release $4 $5
    fi || {
        echo "HIL: $1 stopped answering; LEDs (green amber red) $(leds); its output:"
        if [ "$1" = daemon ]; then tail -n 20 /tmp/lifesignald.log; else tail -n 20 /tmp/out; fi
        return 1
    }
}
drive_quietly() { drive "$@" > /dev/null; }
