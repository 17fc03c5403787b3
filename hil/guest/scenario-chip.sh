# Scenario "chip": lifesignald on a chip that does not exist yet, appears, goes away and comes back
# (a second gpio-sim device, "lifesignal-late", switched with its configfs `live`). The daemon must
# stay up and say what it waits for, take the lines when the chip appears, notice the removal,
# and take the lines again. Written against the gpio-sim layout in lib.sh; see docs/hil.md.
. /hil/daemon.sh
LATE_LABEL=lifesignal-late
late=/sys/kernel/config/gpio-sim/late
mkdir -p "$late/bank0"
echo 32 > "$late/bank0/num_lines"
echo "$LATE_LABEL" > "$late/bank0/label"
for line in $BUTTON $LEDS; do
    mkdir -p "$late/bank0/line$line"
    echo "GPIO$line" > "$late/bank0/line$line/name"
done
# Brings the late chip up and points the helpers (press, leds, ...) at it.
late_up() {
    echo 1 > "$late/live"
    SIM=/sys/devices/platform/$(cat "$late/dev_name")/$(cat "$late/bank0/chip_name")
    echo pull-up > "$SIM/sim_gpio$BUTTON/pull"
}
error_text() { ctl status --json | sed -n 's/.*"error" *: *"\([^"]*\)".*/\1/p'; }
# The status names the chip it waits for (not `sh -c`: ctl is a function of this shell).
waits_for_late_chip() { error_text | grep -q "waiting for GPIO chip '$LATE_LABEL'"; }

write_config
sed -i "s|chip = \"$SIM_LABEL\"|chip = \"$LATE_LABEL\"|" "$CONF"
check "lifesignald starts although its chip is missing" start_daemon
check "status says which chip it waits for" waits_for_late_chip
error_text
check "and shows the GPIO fault" [ "$(indicator)" = fault ]
check "the daemon is still running" kill -0 $DAEMON

late_up
check "when the chip appears the daemon takes its lines" wait_for "held_by $BUTTON lifesignald" 10
check "the fault clears" wait_for '[ "$(indicator)" = never_checked_in ]' 5
check "and the LEDs show never checked in (amber)" wait_for '[ "$(leds)" = 010 ]' 5
press; usleep 200000; release
check "a press on the new chip is a check-in" wait_for '[ "$(checkins)" = 1 ]' 5

echo 0 > "$late/live"
check "a chip removed while running is noticed" wait_for waits_for_late_chip 10
error_text
# The acknowledgement of the press above outranks the fault while it shows: wait for it to end.
check "and shows the GPIO fault again" wait_for '[ "$(indicator)" = fault ]' 5
check "and the daemon stays up" kill -0 $DAEMON

late_up
check "when it is back the lines are taken again" wait_for "held_by $BUTTON lifesignald" 10
check "and the LEDs show checked in again (green steady)" wait_for '[ "$(leds)" = 100 ]' 5
check "with the check-in still stored" [ "$(checkins)" = 1 ]
kill -TERM $DAEMON; wait $DAEMON; status=$?
check "SIGTERM stops it cleanly (exit 0)" [ "$status" = 0 ]
# Scenarios after this one see only the main chip again (both name a line GPIO17).
echo 0 > "$late/live"
for line in $BUTTON $LEDS; do rmdir "$late/bank0/line$line"; done
rmdir "$late/bank0" "$late"
finish
