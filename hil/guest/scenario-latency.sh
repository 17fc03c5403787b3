# Scenario "latency": edge -> LED latency of five responders side by side, in one boot, timed by
# the same driver (sim-button latency), with every store in the same place (tmpfs /tmp):
#   probe   lifesignal-gpio-probe, the Swift libgpiod backend alone: press edge -> LED, no store
#   daemon  lifesignald: release edge -> check-in committed (WAL, synchronous=FULL) -> red LED
#   floor   lifesignal-press-floor: the daemon's architecture (button thread, one reducer on its
#           Store and executor, its store thread and schema, an observer for the LED) doing that
#           and nothing else: what any device built this way pays for a press
#   C       press-reference (libgpiod + SQLite): the daemon's job for a press in a few dozen lines
#   Python  press-reference.py (gpiod bindings + sqlite3): the same job
# The four that store are timed alike: the clock starts at the release (a short press checks in
# when it ends), the acknowledgement is a steady red (GPIO13) for 200 ms, the daemon's debounce is
# 0 (the references have none), and every check-in must be stored.
#
# Each responder runs ROUNDS times with PRESSES timed presses (after WARMUP untimed ones), a new
# process each round, and the order rotates every round: a change in the host's load during the
# boot then falls on all five alike. Compare the ratios it prints, not absolute times between runs.
# Targets (issue 17) are printed, not enforced: a timing target is a benchmark, not a check.
. /hil/latency.sh
ROUNDS=4 PRESSES=50 WARMUP=10

# cpu_snapshot PID: one line per thread: name, tid, ns on the CPU, context switches so far.
cpu_snapshot() {
    for task in /proc/$1/task/*; do
        echo "$(cat "$task/comm") ${task##*/} $(cut -d' ' -f1 "$task/schedstat") $(awk '/ctxt_switches/ { s += $2 } END { print s }' "$task/status")"
    done 2>/dev/null
}
# cpu_used BEFORE AFTER: per thread name, what the process used between two snapshots ("name ns switches").
cpu_used() {
    awk 'FNR == NR { ns[$2] = $3; sw[$2] = $4; next } { print $1, $3 - ns[$2], $4 - sw[$2] }' "$1" "$2"
}

# Two times per press. "Seen": until the driver reads the changed LED. On the guest's one vCPU the
# driver runs only when the responder yields the CPU, so this includes whatever the responder does
# after setting the LED before it blocks again (the daemon's log line, its acknowledgement timer).
# "Set": until the responder set the LED, stamped by the kernel (the gpio_value trace event of the
# line, on CLOCK_MONOTONIC like the driver's start): what a person looking at the LED would see.
TRACE=/sys/kernel/tracing
mount -t tracefs tracefs $TRACE
mkdir -p /sys/kernel/debug && mount -t debugfs debugfs /sys/kernel/debug
BASE=$(sed -n "s/^$SIM_CHIP: GPIOs \([0-9]*\)-.*/\1/p" /sys/kernel/debug/gpio)
echo mono > $TRACE/trace_clock
echo 1 > $TRACE/events/gpio/gpio_value/enable
# led_step RESPONDER: the trace line of its answering LED line set on.
led_step() { echo ": gpio_value: $((BASE + $(answer_line "$1"))) set 1"; }
# step_times STEPS: "k µs" for each press in /tmp/starts and each step k in STEPS (one a line, a
# fixed string of a trace line): the time from the press's start to the first trace of step k
# after step k - 1, before the next press starts. A step that never came has no line.
step_times() {
    awk 'FNR == 1 { file++ }
        file == 1 { step[++n] = $0; next }
        file == 2 { start[++presses] = $1 / 1000; next }
        !match($0, / [0-9]+\.[0-9]+: /) { next }
        { t = substr($0, RSTART + 1, RLENGTH - 3) * 1e6
          while (p < presses && t >= start[p + 1]) { p++; k = 1 }
          if (k >= 1 && k <= n && index($0, step[k])) { printf "%d %d\n", k, t - start[p]; k++ } }' \
        "$1" /tmp/starts $TRACE/trace
}

RESPONDERS="probe daemon floor C Python"
order=$RESPONDERS round=1
while [ $round -le $ROUNDS ]; do
    for responder in $order; do
        if check "round $round: $responder starts" start $responder; then
            cpu_snapshot $pid > /tmp/cpu-before
            rm -f /tmp/starts; : > $TRACE/trace
            check "round $round: $responder answers $PRESSES presses" drive $responder $PRESSES $WARMUP "/tmp/samples-$responder" /tmp/starts
            cpu_snapshot $pid > /tmp/cpu-after
            cpu_used /tmp/cpu-before /tmp/cpu-after >> "/tmp/cpu-$responder"
            led_step $responder > /tmp/led-step
            step_times /tmp/led-step | cut -d' ' -f2 > /tmp/set-round
            check "round $round: $responder's LED set traced for every timed press" \
                eval '[ "$(wc -l < /tmp/set-round)" = $PRESSES ]'
            cat /tmp/set-round >> "/tmp/set-$responder"
        else
            cat /tmp/out 2>/dev/null
        fi
        stop
    done
    order="${order#* } ${order%% *}"  # the first goes last
    round=$((round + 1))
done

# System calls per press: each responder once more, untimed, while the kernel counts every system
# call by thread (a histogram trigger on raw_syscalls:sys_enter; the driver's own are left out).
TRACED=20
echo 0 > $TRACE/events/gpio/gpio_value/enable
HIST='hist:keys=common_pid.execname,id.syscall:vals=hitcount:size=4096'
for responder in $RESPONDERS; do
    check "traced run: $responder starts" start $responder || continue
    echo "$HIST" > $TRACE/events/raw_syscalls/sys_enter/trigger
    check "traced run: $responder answers $TRACED presses" drive_quietly $responder $TRACED 0
    # "{ common_pid: store [ 231], id: sys_pwrite64 [ 18] } hitcount: 60": name, tid, call, count.
    sed 's/[][{}:,]/ /g' $TRACE/events/raw_syscalls/sys_enter/hist \
        | awk -v tids=" $(ls /proc/$pid/task | tr '\n' ' ')" '$1 == "common_pid" && index(tids, " " $3 " ") { print $2, $5, $8 }' \
        > "/tmp/syscalls-$responder"
    echo "!$HIST" > $TRACE/events/raw_syscalls/sys_enter/trigger
    stop
done

# Where a press's time goes until the LED is set: each store responder once more, untimed, while
# the kernel traces which thread runs (sched_switch), the fdatasync of the commit and the LED line.
# Per press, the time from the edge to each step in turn (the first trace of it after the step
# before); the medians are printed. The daemon's steps: its button thread runs, its main thread
# runs (the release is reduced), its store thread runs, the commit's fdatasync starts and returns,
# the main thread runs (the commit's answer is reduced), the LED is set. The references' steps
# are the same without the hops between threads.
# steps RESPONDER: one pattern a line, each a fixed string of a trace line.
steps() {
    case $1 in
        # The daemon and its floor hop alike; only the main thread's name differs (the kernel keeps
        # 15 bytes of it).
        daemon | floor)
            main=lifesignald; [ "$1" = floor ] && main=lifesignal-pres
            printf '%s\n' '==> next_comm=gpio-button ' "==> next_comm=$main " '==> next_comm=store ' \
                ': sys_fdatasync(' ': sys_fdatasync -> ' "==> next_comm=$main " ;;
        C) printf '%s\n' '==> next_comm=press-reference ' ': sys_fdatasync(' ': sys_fdatasync -> ' ;;
        Python) printf '%s\n' '==> next_comm=python3 ' ': sys_fdatasync(' ': sys_fdatasync -> ' ;;
    esac
    led_step "$1"
}
STEPPED=20 STEP_EVENTS="sched/sched_switch syscalls/sys_enter_fdatasync syscalls/sys_exit_fdatasync gpio/gpio_value"
echo 8192 > $TRACE/buffer_size_kb
for event in $STEP_EVENTS; do echo 1 > $TRACE/events/$event/enable; done
for responder in daemon floor C Python; do
    check "stepped run: $responder starts" start $responder || continue
    rm -f /tmp/starts; : > $TRACE/trace
    check "stepped run: $responder answers $STEPPED presses" drive_quietly $responder $STEPPED 0 /dev/null /tmp/starts
    stop
    steps $responder > /tmp/steps
    step_times /tmp/steps > /tmp/stepped
    printf 'HIL: latency %-7s' "$responder"
    k=1
    while read -r step; do
        median=$(awk -v k=$k '$1 == k { print $2 }' /tmp/stepped | sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }')
        printf ' %s %s' "${median:-?}" "$(echo "$step" | sed 's/.*next_comm=\([^ ]*\).*/\1 runs/; s/.*sys_fdatasync ->.*/fdatasync returns/; s/.*sys_fdatasync(.*/fdatasync starts/; s/.*gpio_value.*/LED set/')"
        k=$((k + 1))
    done < /tmp/steps
    echo " (us after the edge, medians of $(awk '$1 == 1' /tmp/stepped | wc -l) presses)"
done
for event in $STEP_EVENTS; do echo 0 > $TRACE/events/$event/enable; done

# Every press a store responder answered is stored (the traced ones and the daemon's first press included).
count() { python3 -S -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute("SELECT count(*) FROM check_ins").fetchone()[0])' "$1"; }
expected=$((ROUNDS * (PRESSES + WARMUP) + TRACED + STEPPED))
check "daemon: every check-in stored ($(count "$STORE") of $((expected + 1)))" [ "$(count "$STORE")" = $((expected + 1)) ]
check "floor: every check-in stored ($(count "$STORE_FLOOR") of $expected)" [ "$(count "$STORE_FLOOR")" = $expected ]
check "C: every check-in stored ($(count "$STORE_C") of $expected)" [ "$(count "$STORE_C")" = $expected ]
check "Python: every check-in stored ($(count "$STORE_PYTHON") of $expected)" [ "$(count "$STORE_PYTHON")" = $expected ]

# The summary: percentiles over all rounds, then the ratios the targets are stated in.
echo "HIL: latency, us ($ROUNDS rounds of $PRESSES presses each; libgpiod $(cat /hil/libgpiod-version)): LED seen by the driver"
for responder in $RESPONDERS; do
    sim-button stats "/tmp/samples-$responder" > "/tmp/stats-$responder" 2>&1
    printf 'HIL: latency %-7s %s\n' "$responder" "$(sed 's/^latency: //' "/tmp/stats-$responder")"
done
echo "HIL: latency, us, the same presses: LED set by the responder (kernel gpio_value trace)"
for responder in $RESPONDERS; do
    sim-button stats "/tmp/set-$responder" > "/tmp/stats-set-$responder" 2>&1
    printf 'HIL: latency %-7s %s\n' "$responder" "$(sed 's/^latency: //' "/tmp/stats-set-$responder")"
done
# Where the time goes, from the same rounds: the CPU each responder's threads used per press
# (timed and warm-up presses, with whatever the press set off after the LED), and context switches.
# one_line: "who total:" then "weight item..." lines, printed as one line, the heaviest item first.
one_line() {
    read -r who rest
    printf 'HIL: latency %-7s %s %s\n' "$who" "$rest" "$(sort -rn | cut -d' ' -f2- | sed 's/^sys_//; s/ sys_/ /' | awk 'NR > 1 { printf ", " } { printf "%s", $0 }')"
}
echo "HIL: latency, CPU time per press in the guest (all threads; then each thread by name)"
for responder in $RESPONDERS; do
    awk -v who="$responder" -v n=$((ROUNDS * (PRESSES + WARMUP))) '
        { ns[$1] += $2; sw[$1] += $3; total += $2; switches += $3 }
        END {
            printf "%s %.2f ms, %.1f switches:\n", who, total / n / 1e6, switches / n
            for (name in ns) if (ns[name] / n >= 5000) printf "%.2f %s %.2f ms\n", ns[name] / n / 1e6, name, ns[name] / n / 1e6
        }' "/tmp/cpu-$responder" | one_line
done
echo "HIL: latency, system calls per press ($TRACED presses, traced; then by thread and call, 0.5 or more)"
for responder in $RESPONDERS; do
    awk -v who="$responder" -v n=$TRACED '
        { calls[$1 " " $2] += $3; total += $3 }
        END {
            printf "%s %.1f:\n", who, total / n
            for (key in calls) if (calls[key] / n >= 0.5) printf "%.1f %s %.1f\n", calls[key] / n, key, calls[key] / n
        }' "/tmp/syscalls-$responder" | one_line
done
# percentile STATS RESPONDER p50|p99; ratio STATS RESPONDER p50|p99 [OVER]: the daemon's (or OVER's)
# over the responder's.
percentile() { sed -n "s/.* $3=\([0-9]*\)us.*/\1/p" "/tmp/$1-$2"; }
ratio() { awk -v a="$(percentile "$1" "${4:-daemon}" "$3")" -v b="$(percentile "$1" "$2" "$3")" 'BEGIN { if (b > 0) printf "%.2f", a / b }'; }
# verdict RATIO OPERATOR LIMIT...: "met" if every ratio compares so with its limit.
verdict() {
    awk -v list="$*" 'BEGIN { n = split(list, w, " "); ok = n > 0
        for (i = 1; i + 2 <= n; i += 3) ok = ok && (w[i + 1] == "<=" ? w[i] + 0 <= w[i + 2] : w[i] + 0 < w[i + 2])
        print (ok ? "met" : "not met") }'
}
for times in seen set; do
    stats=stats; [ $times = set ] && stats=stats-set
    c50=$(ratio $stats C p50) c99=$(ratio $stats C p99) py50=$(ratio $stats Python p50) py99=$(ratio $stats Python p99)
    if [ -n "$c50" ] && [ -n "$c99" ] && [ -n "$py50" ] && [ -n "$py99" ]; then
        echo "HIL: latency daemon/C      $times: p50 ${c50}x p99 ${c99}x (target p50 <= 1.5x: $(verdict "$c50" '<=' 1.5))"
        echo "HIL: latency daemon/Python $times: p50 ${py50}x p99 ${py99}x (target both < 1x: $(verdict "$py50" '<' 1 "$py99" '<' 1))"
        # The architecture's own share: its floor against C, and the daemon against its floor.
        echo "HIL: latency floor/C       $times: p50 $(ratio $stats C p50 floor)x p99 $(ratio $stats C p99 floor)x"
        echo "HIL: latency daemon/floor  $times: p50 $(ratio $stats floor p50)x p99 $(ratio $stats floor p99)x"
    else
        check "every responder has $times samples" false
    fi
done
finish
