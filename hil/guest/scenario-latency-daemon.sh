# Scenario "latency-daemon": edge -> LED latency of lifesignald for an acknowledged (durably
# stored, store on tmpfs) check-in. A check-in happens when a short press is released, so the
# clock starts at the release edge; the acknowledgement is made a steady red for this run so
# the first LED change is the acknowledgement itself. Debounce 0: software path only (add the
# configured debounce period for the figure a user sees).
. /hil/daemon.sh
write_config '[feedback]' 'acknowledgement = "200ms"' '[patterns.acknowledged]' 'red = "on"'
sed -i 's|debounce = "30ms"|debounce = "0ms"|' "$CONF"
check "lifesignald starts" start_daemon
press; usleep 100000; release
check "first check-in shown (green steady)" wait_for '[ "$(leds)" = 100 ]' 5
check "220 check-ins acknowledged (20 warm-up)" sim-button latency "$SIM/sim_gpio$BUTTON/pull" "$SIM/sim_gpio13/value" 200 20 50 20 release
check "every one stored" [ "$(checkins)" = 221 ]
kill -TERM $DAEMON; wait $DAEMON
finish
