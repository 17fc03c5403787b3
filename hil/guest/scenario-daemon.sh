# Scenario "daemon": the real lifesignald on the simulated chip through libgpiod. The LEDs are
# green GPIO5, amber GPIO6, red GPIO13 (active-high); leds prints them in that order.
. /hil/daemon.sh
write_config

check "lifesignald starts on the simulated chip" start_daemon
check "gpioinfo shows the button held by lifesignald" held_by $BUTTON lifesignald
for led in $LEDS; do check "gpioinfo shows LED GPIO$led held by lifesignald" held_by $led lifesignald; done
check "never checked in: amber blinks, green and red off" wait_for '[ "$(leds)" = 010 ]' 5
check "no check-ins yet" [ "$(checkins)" = 0 ]

press; usleep 200000; release
check "a press is acknowledged: green blinks" wait_for '[ "$(line_value 5)" = 1 ]'
check "then shows checked in: green steady" wait_for '[ "$(leds)" = 100 ] && sleep 0.5 && [ "$(leds)" = 100 ]' 5
check "one check-in stored" [ "$(checkins)" = 1 ]

chatter_press; usleep 200000; release
wait_for '[ "$(indicator)" = checked_in ]' 5
check "a 20-edge chatter burst is one check-in" [ "$(checkins)" = 2 ]

glitch 10000
usleep 500000
check "a 10 ms glitch is nothing" [ "$(checkins)" = 2 ]

# Nothing here can deliver a help alert (no [uplink]), so help alerts are off: a long press shows
# its own pattern (all three LEDs on) and is not a check-in; the next short press is one.
press
check "a long press shows its pattern: all three LEDs" wait_for '[ "$(leds)" = 111 ]' 6
release
check "then back to checked in" wait_for '[ "$(leds)" = 100 ]' 5
check "and the long press is not a check-in" [ "$(checkins)" = 2 ]
check "nor a fault (no help alert nobody could receive)" [ "$(indicator)" = checked_in ]
press; usleep 150000; release
check "the next short press is a check-in" wait_for '[ "$(checkins)" = 3 ]' 5

write_config && cp "$CONF" /tmp/second.toml
sed -i "s|$SOCK|/run/second.sock|; s|$STORE|/tmp/second.sqlite|" /tmp/second.toml
lifesignald --config /tmp/second.toml > /tmp/busy.out 2>&1; status=$?
cat /tmp/busy.out | tail -n 3
check "a second daemon fails: line busy, consumer named" grep -q "already used by consumer 'lifesignald'" /tmp/busy.out
check "with exit code 69 (unavailable)" [ "$status" = 69 ]

kill -9 $DAEMON; wait $DAEMON 2>/dev/null
check "after kill -9 the lines are free" not_held_by $BUTTON lifesignald
check "and the LEDs fall back to off (gpio-sim reverts released lines)" [ "$(leds)" = 000 ]
check "a restart comes up" start_daemon
check "and shows the same state: checked in, green steady" wait_for '[ "$(leds)" = 100 ]' 5
check "with all three check-ins still stored" [ "$(checkins)" = 3 ]

kill -TERM $DAEMON; wait $DAEMON; status=$?
check "SIGTERM stops it cleanly (exit 0)" [ "$status" = 0 ]
check "and releases the lines" not_held_by 5 lifesignald

write_config
sed -i 's|line = "GPIO17"|line = "GPIO99"|' "$CONF"
lifesignald --config "$CONF" > /tmp/wrong.out 2>&1; status=$?
tail -n 3 /tmp/wrong.out
check "a wrong line name is a clear error" grep -q "no line of that name; named lines: GPIO5" /tmp/wrong.out
check "with exit code 69" [ "$status" = 69 ]
finish
