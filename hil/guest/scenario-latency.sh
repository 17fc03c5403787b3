# Scenario "latency": edge -> LED latency of four responders side by side, in one boot, timed by
# the same driver (sim-button latency), with every store in the same place (tmpfs /tmp):
#   probe   lifesignal-gpio-probe, the Swift libgpiod backend alone: press edge -> LED, no store
#   daemon  lifesignald: release edge -> check-in committed (WAL, synchronous=FULL) -> red LED
#   C       press-reference (libgpiod + SQLite): the daemon's job for a press in a few dozen lines
#   Python  press-reference.py (gpiod bindings + sqlite3): the same job
# The three that store are timed alike: the clock starts at the release (a short press checks in
# when it ends), the acknowledgement is a steady red (GPIO13) for 200 ms, the daemon's debounce is
# 0 (the references have none), and every check-in must be stored.
#
# Each responder runs ROUNDS times with PRESSES timed presses (after WARMUP untimed ones), a new
# process each round, and the order rotates every round: a change in the host's load during the
# boot then falls on all four alike. Compare the ratios it prints, not absolute times between runs.
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

order="probe daemon C Python" round=1
while [ $round -le $ROUNDS ]; do
    for responder in $order; do
        if check "round $round: $responder starts" start $responder; then
            cpu_snapshot $pid > /tmp/cpu-before
            check "round $round: $responder answers $PRESSES presses" drive $responder $PRESSES $WARMUP "/tmp/samples-$responder"
            cpu_snapshot $pid > /tmp/cpu-after
            cpu_used /tmp/cpu-before /tmp/cpu-after >> "/tmp/cpu-$responder"
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
TRACE=/sys/kernel/tracing
mount -t tracefs tracefs $TRACE
HIST='hist:keys=common_pid.execname,id.syscall:vals=hitcount:size=4096'
for responder in probe daemon C Python; do
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

# Every press a store responder answered is stored (the traced ones and the daemon's first press included).
count() { python3 -S -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute("SELECT count(*) FROM check_ins").fetchone()[0])' "$1"; }
expected=$((ROUNDS * (PRESSES + WARMUP) + TRACED))
check "daemon: every check-in stored ($(count "$STORE") of $((expected + 1)))" [ "$(count "$STORE")" = $((expected + 1)) ]
check "C: every check-in stored ($(count "$STORE_C") of $expected)" [ "$(count "$STORE_C")" = $expected ]
check "Python: every check-in stored ($(count "$STORE_PYTHON") of $expected)" [ "$(count "$STORE_PYTHON")" = $expected ]

# The summary: percentiles over all rounds, then the ratios the targets are stated in.
echo "HIL: latency, us ($ROUNDS rounds of $PRESSES presses each; libgpiod $(cat /hil/libgpiod-version))"
for responder in probe daemon C Python; do
    sim-button stats "/tmp/samples-$responder" > "/tmp/stats-$responder" 2>&1
    printf 'HIL: latency %-7s %s\n' "$responder" "$(sed 's/^latency: //' "/tmp/stats-$responder")"
done
# Where the time goes, from the same rounds: the CPU each responder's threads used per press
# (timed and warm-up presses, with whatever the press set off after the LED), and context switches.
# one_line: "who total:" then "weight item..." lines, printed as one line, the heaviest item first.
one_line() {
    read -r who rest
    printf 'HIL: latency %-7s %s %s\n' "$who" "$rest" "$(sort -rn | cut -d' ' -f2- | sed 's/^sys_//; s/ sys_/ /' | awk 'NR > 1 { printf ", " } { printf "%s", $0 }')"
}
echo "HIL: latency, CPU time per press in the guest (all threads; then each thread by name)"
for responder in probe daemon C Python; do
    awk -v who="$responder" -v n=$((ROUNDS * (PRESSES + WARMUP))) '
        { ns[$1] += $2; sw[$1] += $3; total += $2; switches += $3 }
        END {
            printf "%s %.2f ms, %.1f switches:\n", who, total / n / 1e6, switches / n
            for (name in ns) if (ns[name] / n >= 5000) printf "%.2f %s %.2f ms\n", ns[name] / n / 1e6, name, ns[name] / n / 1e6
        }' "/tmp/cpu-$responder" | one_line
done
echo "HIL: latency, system calls per press ($TRACED presses, traced; then by thread and call, 0.5 or more)"
for responder in probe daemon C Python; do
    awk -v who="$responder" -v n=$TRACED '
        { calls[$1 " " $2] += $3; total += $3 }
        END {
            printf "%s %.1f:\n", who, total / n
            for (key in calls) if (calls[key] / n >= 0.5) printf "%.1f %s %.1f\n", calls[key] / n, key, calls[key] / n
        }' "/tmp/syscalls-$responder" | one_line
done
percentile() { sed -n "s/.* $2=\([0-9]*\)us.*/\1/p" "/tmp/stats-$1"; }
ratio() { awk -v a="$(percentile daemon "$2")" -v b="$(percentile "$1" "$2")" 'BEGIN { if (b > 0) printf "%.2f", a / b }'; }
# verdict RATIO OPERATOR LIMIT...: "met" if every ratio compares so with its limit.
verdict() {
    awk -v list="$*" 'BEGIN { n = split(list, w, " "); ok = n > 0
        for (i = 1; i + 2 <= n; i += 3) ok = ok && (w[i + 1] == "<=" ? w[i] + 0 <= w[i + 2] : w[i] + 0 < w[i + 2])
        print (ok ? "met" : "not met") }'
}
c50=$(ratio C p50) c99=$(ratio C p99) py50=$(ratio Python p50) py99=$(ratio Python p99)
if [ -n "$c50" ] && [ -n "$c99" ] && [ -n "$py50" ] && [ -n "$py99" ]; then
    echo "HIL: latency daemon/C      p50 ${c50}x p99 ${c99}x (target p50 <= 1.5x: $(verdict "$c50" '<=' 1.5))"
    echo "HIL: latency daemon/Python p50 ${py50}x p99 ${py99}x (target both < 1x: $(verdict "$py50" '<' 1 "$py99" '<' 1))"
else
    check "every responder has samples" false
fi
finish
