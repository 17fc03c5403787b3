# Scenario "daily": the buzzer (GPIO26) and a UPS HAT's mains (GPIO16) and low-battery (GPIO20)
# lines of the real lifesignald through libgpiod on the simulated chip: the reminder and the last
# chance beep, on battery shows its pattern and is an event, a low battery stops the daemon cleanly,
# and only a death is reported as an unexpected restart.
. /hil/daemon.sh
power_config() {
    write_config '
[check_in]
interval = "12s"
reminder = "4s"
# Long enough that the 2 s the beeps are counted for fall inside it, however late a loaded guest
# notices the last chance began.
grace = "8s"

[developer]
short_intervals = true

[buzzer]
line = "GPIO26"
reminder = "100ms on, 900ms off"
last_chance = "100ms on, 300ms off"

[power]
mains_line = "GPIO16"
low_battery_line = "GPIO20"'
}
mains() { ctl status --json | sed -n 's/.*"mains" *: *"\([a-z]*\)".*/\1/p'; }
events() { ctl status --json | grep -c "\"kind\" *: *\"$1\""; }
power_config

check "lifesignald starts with a buzzer and two inputs" start_daemon
for line in $BUZZER $MAINS $LOW_BATTERY; do check "gpioinfo shows GPIO$line held by lifesignald" held_by $line lifesignald; done
check "the mains is present" wait_for '[ "$(mains)" = present ]' 5
check "the buzzer is silent while nothing asks" [ "$(line_value $BUZZER)" = 0 ]

press; usleep 150000; release
check "a press: checked in, green steady (after the acknowledgement)" wait_for '[ "$(indicator)" = checked_in ] && [ "$(leds)" = 100 ]' 5

echo pull-down > "$SIM/sim_gpio$MAINS/pull"
check "the mains goes: the device says so" wait_for '[ "$(mains)" = lost ]' 5
check "on battery: the LEDs show on_battery (green blinks slowly)" wait_for '[ "$(indicator)" = on_battery ]' 3
check "and it is an event" [ "$(events on_battery)" = 1 ]
echo pull-up > "$SIM/sim_gpio$MAINS/pull"
check "the mains comes back: power restored" wait_for '[ "$(events power_restored)" = 1 ]' 5

check "the reminder starts: amber steady" wait_for '[ "$(indicator)" = reminder ]' 10
check "the reminder beeps (the buzzer line toggles)" [ "$(toggles $BUZZER 2)" -ge 2 ]
check "the deadline passes: the last chance" wait_for '[ "$(indicator)" = last_chance ]' 10
check "the last chance beeps faster" [ "$(toggles $BUZZER 2)" -ge 6 ]
check "overdue once the grace is over" wait_for '[ "$(indicator)" = overdue ]' 10
check "and the buzzer is silent" [ "$(toggles $BUZZER 1)" = 0 ] && [ "$(line_value $BUZZER)" = 0 ]

echo pull-up > "$SIM/sim_gpio$LOW_BATTERY/pull"
wait $DAEMON; status=$?
check "a low battery stops the daemon cleanly (exit 0)" [ "$status" = 0 ]
check "saying why" grep -q "the battery is low: stopping cleanly" /tmp/lifesignald.log
check "and lets the buzzer go" not_held_by $BUZZER lifesignald
echo pull-down > "$SIM/sim_gpio$LOW_BATTERY/pull"

check "it comes up again" start_daemon
check "with no unexpected restart (it stopped cleanly)" [ "$(events unexpected_restart)" = 0 ]
kill -9 $DAEMON; wait $DAEMON 2>/dev/null
check "after kill -9 it comes up" start_daemon
check "and reports the unexpected restart" wait_for '[ "$(events unexpected_restart)" = 1 ]' 5
kill -TERM $DAEMON; wait $DAEMON
finish
