# Scenario "latency-probe": edge -> LED latency of the Swift libgpiod backend alone (the probe
# mirrors the button onto LED GPIO5), without debounce so only the software path is timed.
lifesignal-gpio-probe --chip "$SIM_LABEL" --button GPIO$BUTTON --leds GPIO5 --debounce-ms 0 > /tmp/probe.out 2>&1 & pid=$!
check "the probe starts" wait_for "grep -q 'probe: ready' /tmp/probe.out" 10
check "300 presses answered" sim-button latency "$SIM/sim_gpio$BUTTON/pull" "$SIM/sim_gpio5/value" 300 20 10 10
kill $pid; wait $pid 2>/dev/null
finish
