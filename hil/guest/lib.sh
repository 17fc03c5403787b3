# Guest helpers for the HIL scenarios (busybox sh). Sourced by /init.
#
# The simulated chip "lifesignal-sim" has 32 lines; the ones a Raspberry Pi build would use are
# named like on a Pi: GPIO17 (button, wired to ground, pulled up: pressed reads low), GPIO5/6/13
# (LEDs, active-high), GPIO26 (a buzzer, active-high), GPIO16 and GPIO20 (a UPS HAT's mains-present
# and low-battery outputs, active-high). gpio-sim drives an input by its "pull" and shows an output
# as "value".
SIM_LABEL=lifesignal-sim
BUTTON=17
LEDS="5 6 13"
BUZZER=26
MAINS=16
LOW_BATTERY=20
FAILURES=0

sim_setup() {
    insmod /lib/modules/configfs.ko && insmod /lib/modules/gpio-sim.ko || { echo "HIL: insmod failed"; return 1; }
    mount -t configfs none /sys/kernel/config || return 1
    dev=/sys/kernel/config/gpio-sim/hil
    mkdir -p "$dev/bank0"
    echo 32 > "$dev/bank0/num_lines"
    echo "$SIM_LABEL" > "$dev/bank0/label"
    for line in $BUTTON $LEDS 21 $BUZZER $MAINS $LOW_BATTERY; do
        mkdir -p "$dev/bank0/line$line"
        echo "GPIO$line" > "$dev/bank0/line$line/name"
    done
    echo 1 > "$dev/live"  # every directory must exist before this
    SIM_CHIP=$(cat "$dev/bank0/chip_name")
    SIM=/sys/devices/platform/$(cat "$dev/dev_name")/$SIM_CHIP
    [ -d "$SIM/sim_gpio$BUTTON" ] || { echo "HIL: no sysfs for $SIM_CHIP"; return 1; }
    # The button's resting level, as the real pull-up gives it, before anyone requests it.
    echo pull-up > "$SIM/sim_gpio$BUTTON/pull"
    # The mains present, the battery fine.
    echo pull-up > "$SIM/sim_gpio$MAINS/pull"
    echo pull-down > "$SIM/sim_gpio$LOW_BATTERY/pull"
}

# The physical button: pressed pulls the line low.
press() { echo pull-down > "$SIM/sim_gpio$BUTTON/pull"; }
release() { echo pull-up > "$SIM/sim_gpio$BUTTON/pull"; }
# The physical level of an output line (0/1).
line_value() { cat "$SIM/sim_gpio$1/value"; }
leds() { for l in $LEDS; do printf '%s' "$(line_value "$l")"; done; echo; }
# How many times output line $1 changed level in $2 seconds (sampled every 20 ms). The window is
# timed in hundredths (in whole seconds it is anything from $2 - 1 to $2 s, too short to count
# the last chance's beeps) and each sample is read by the shell itself, with no process forked
# per sample, so a slow guest still samples well within a 100 ms beep.
toggles() {
    read -r last < "$SIM/sim_gpio$1/value"
    count=0
    now_cs
    end=$(( NOW_CS + $2 * 100 ))
    while now_cs; [ "$NOW_CS" -lt "$end" ]; do
        read -r value < "$SIM/sim_gpio$1/value"
        [ "$value" != "$last" ] && count=$((count + 1)) && last=$value
        usleep 20000
    done
    echo "$count"
}

# A bouncing press: 20 edges 1 ms apart, then pressed (sim-button times it; the shell cannot).
chatter_press() { sim-button chatter "$SIM/sim_gpio$BUTTON/pull" 10 1000; }
# A press shorter than any debounce period: $1 microseconds.
glitch() { sim-button pulse "$SIM/sim_gpio$BUTTON/pull" "$1"; }

# Seconds since boot (whole), for deadlines.
uptime_s() { cut -d. -f1 /proc/uptime; }
# Hundredths of a second since boot into NOW_CS, without a fork (/proc/uptime has two decimals;
# the leading 1 keeps a fraction like 08 from reading as octal).
now_cs() { read -r up _ < /proc/uptime; NOW_CS=$(( ${up%.*} * 100 + 1${up#*.} - 100 )); }

# Waits up to $2 seconds (default 3) for a command to succeed, trying every 50 ms.
wait_for() {
    deadline=$(( $(uptime_s) + ${2:-3} ))
    while :; do
        eval "$1" >/dev/null 2>&1 && return 0
        [ "$(uptime_s)" -lt "$deadline" ] || return 1
        usleep 50000
    done
}

check() { # description command...
    what=$1; shift
    if "$@"; then echo "HIL: ok   - $what"; else echo "HIL: FAIL - $what"; FAILURES=$((FAILURES + 1)); fi
}

# Ends a scenario: non-zero if any check failed.
finish() {
    echo "HIL: $FAILURES failed check(s)"
    [ "$FAILURES" -eq 0 ]
}

# Whether libgpiod's tools are the 1.x or the 2.x flavour (their options differ).
tools_major() { cut -c1 /hil/libgpiod-version; }

# Whether gpioinfo shows line GPIO$1 held by consumer $2 (both tool flavours print the name and
# the consumer on one line).
held_by() { gpioinfo 2>/dev/null | grep "\"GPIO$1\"" | grep -q "$2"; }
not_held_by() { ! held_by "$@"; }
