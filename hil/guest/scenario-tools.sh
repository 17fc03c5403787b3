# Scenario "tools": the simulated chip with libgpiod's own command-line tools (1.x or 2.x
# flavour). Proves the guest, gpio-sim and the character device before our code is involved.

check "gpiodetect lists the simulated chip" sh -c "gpiodetect | grep -q '$SIM_LABEL'"
check "gpioinfo shows the named button line" sh -c "gpioinfo | grep -q '\"GPIO$BUTTON\"'"

if [ "$(tools_major)" = 1 ]; then
    gpioset --mode=signal "$SIM_CHIP" 5=1 & holder=$!
else
    gpioset -c "$SIM_CHIP" GPIO5=1 & holder=$!
fi
check "an output held by gpioset reads 1" wait_for '[ "$(line_value 5)" = 1 ]'
check "gpioinfo names the consumer gpioset" held_by 5 gpioset
kill $holder; wait $holder 2>/dev/null
check "a released output reverts to its pull (0)" wait_for '[ "$(line_value 5)" = 0 ]'

if [ "$(tools_major)" = 1 ]; then
    gpiomon --num-events=1 --falling-edge "$SIM_CHIP" $BUTTON > /tmp/mon.out & monitor=$!
else
    gpiomon -c "$SIM_CHIP" -n 1 --edges=falling GPIO$BUTTON > /tmp/mon.out & monitor=$!
fi
wait_for "held_by $BUTTON gpiomon"
press
check "gpiomon sees the press (falling edge)" wait_for "grep -qi falling /tmp/mon.out"
release
kill $monitor 2>/dev/null; wait $monitor 2>/dev/null
cat /tmp/mon.out
finish
