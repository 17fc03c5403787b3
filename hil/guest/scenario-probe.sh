# Scenario "probe": the Swift libgpiod backend (GPIOLibgpiod) on its own, through
# lifesignal-gpio-probe, which mirrors the button onto the first LED and prints its events.

PROBE="lifesignal-gpio-probe --chip $SIM_LABEL --button GPIO$BUTTON --leds GPIO5,GPIO6,GPIO13"
presses() { grep -c 'probe: pressed' /tmp/probe.out; }

$PROBE > /tmp/probe.out 2>&1 & pid=$!
check "the probe starts" wait_for "grep -q 'probe: ready' /tmp/probe.out" 10
cat /tmp/probe.out
check "LEDs start off" [ "$(leds)" = 000 ]
check "gpioinfo shows the button held by lifesignald" held_by $BUTTON lifesignald
check "gpioinfo shows the LEDs held by lifesignald" held_by 13 lifesignald
gpioinfo | grep lifesignald

press
check "a press lights the first LED" wait_for '[ "$(leds)" = 100 ]'
release
check "the release puts it out" wait_for '[ "$(leds)" = 000 ]'
check "one press counted" [ "$(presses)" = 1 ]

chatter_press
check "a 20-edge chatter burst lights the LED" wait_for '[ "$(leds)" = 100 ]'
release
wait_for '[ "$(leds)" = 000 ]'
check "the burst counts once" [ "$(presses)" = 2 ]

glitch 10000  # 10 ms: shorter than the 30 ms debounce
usleep 200000
check "a 10 ms glitch is no press" [ "$(presses)" = 2 ]
cat /tmp/probe.out

$PROBE > /tmp/busy.out 2>&1
check "a second instance fails: line busy, consumer named" grep -q "already used by consumer 'lifesignald'" /tmp/busy.out
cat /tmp/busy.out

kill -9 $pid; wait $pid 2>/dev/null
check "after a kill the lines are free again" not_held_by $BUTTON lifesignald
$PROBE > /tmp/probe2.out 2>&1 & pid=$!
check "a restart comes up" wait_for "grep -q 'probe: ready' /tmp/probe2.out" 10
cat /tmp/probe2.out
check "and starts with LEDs off" [ "$(leds)" = 000 ]
press
check "and answers a press" wait_for '[ "$(leds)" = 100 ]'
release
kill $pid; wait $pid 2>/dev/null

lifesignal-gpio-probe --chip "$SIM_LABEL" --button GPIO99 --leds GPIO5 > /tmp/wrong.out 2>&1
check "a wrong line name gives a clear error" grep -q "no line of that name; named lines: GPIO5" /tmp/wrong.out
cat /tmp/wrong.out
lifesignal-gpio-probe --chip no-such-chip --button GPIO17 --leds GPIO5 > /tmp/nochip.out 2>&1
check "a wrong chip lists the chips present" grep -q "chips present: $SIM_CHIP \[$SIM_LABEL" /tmp/nochip.out
cat /tmp/nochip.out
finish
