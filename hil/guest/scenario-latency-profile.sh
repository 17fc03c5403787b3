# Scenario "latency-profile": where lifesignald's time goes in the guest, next to the reference
# responders (hil/build-perf adds perf, the binaries' symbols and /hil/uprobes). Not a timing:
# uprobes and sampling slow every responder down, so the latencies it prints are not figures.
#   1. Per press, by thread: in the daemon the actions its store reduces (each is also seen by the
#      store's observers: LEDs, waiters, the log), calls to malloc (libc's, which Swift's allocator
#      and SQLite use), Swift heap objects (swift_allocObject) and tasks created
#      (swift_task_create_common); malloc in the C and Python references; context switches and
#      system calls of all three. Counted with `perf stat` over PRESSES presses.
#   2. lifesignald sampled (`perf record -g`, cpu-clock) over PRESSES presses: the share of each
#      thread, of each library, and the functions the main thread's time is spent under. hil/run
#      demangles the Swift names.
. /hil/latency.sh
PRESSES=40
TRACE=/sys/kernel/tracing
mount -t tracefs tracefs $TRACE
check "uprobes defined" sh -c "cat /hil/uprobes >> $TRACE/uprobe_events"

# count RESPONDER EVENTS: per press, each event's count: the total, then by thread name.
count() {
    check "counted: $1 starts" start $1 || return
    drive_quietly $1 10 0
    perf stat --per-thread -x, -e "$2" -p $pid -o /tmp/stat 2> /tmp/stat.err & stat=$!
    sleep 1  # perf stat attaches
    check "counted: $1 answers $PRESSES presses" drive_quietly $1 $PRESSES 0
    kill -INT $stat; wait $stat
    stop
    # "lifesignald-159,8465,,lifesignal:malloc,...": thread-tid, count, unit, event.
    sed 's/-[0-9]*,/,/' /tmp/stat | awk -F, -v who=$1 -v n=$PRESSES '
        $2 ~ /^[0-9]+$/ { total[$4] += $2; by[$4, $1] += $2; if (!seen[$4]++) order[++events] = $4; names[$1] = 1 }
        END {
            for (e = 1; e <= events; e++) {
                line = sprintf("HIL: profile %-7s %-28s %7.1f", who, order[e], total[order[e]] / n)
                for (name in names) if (by[order[e], name] / n >= 0.5) line = line sprintf(", %s %.1f", name, by[order[e], name] / n)
                print line
            }
        }'
    [ -s /tmp/stat ] || cat /tmp/stat.err
}
echo "HIL: profile, per press ($PRESSES presses; the total, then by thread)"
EVENTS=context-switches,raw_syscalls:sys_enter
count daemon $EVENTS,lifesignal:actions,lifesignal:malloc,lifesignal:swift_allocObject,lifesignal:swift_task_create
count C $EVENTS,lifesignal:c_malloc
count Python $EVENTS,lifesignal:malloc

check "sampled: daemon starts" start daemon && {
    drive_quietly daemon 10 0
    perf record -q -e cpu-clock -F 1000 -g -p $pid -o /tmp/perf.data > /tmp/record.out 2>&1 & record=$!
    sleep 1
    check "sampled: daemon answers $PRESSES presses" drive_quietly daemon $PRESSES 0
    kill -INT $record
    # Its exit status after the interrupt varies (a complete profile can come with a failure
    # status, an empty one with success), so the check is the samples themselves.
    wait $record
    stop
    report() { perf report -i /tmp/perf.data --stdio "$@" 2> /dev/null | grep '%' | sed 's/^ */HIL: profile /'; }
    milliseconds=$(perf report -i /tmp/perf.data --stdio 2> /dev/null | sed -n 's/^# Event count (approx.): \([0-9]*\).*/\1/p')
    check "perf record sampled the daemon" [ "${milliseconds:-0}" -gt 0 ] || cat /tmp/record.out
    echo "HIL: profile, lifesignald sampled over $PRESSES presses: $(awk -v ns="$milliseconds" -v n=$PRESSES 'BEGIN { printf "%.1f", ns / n / 1e6 }') ms of CPU per press"
    echo "HIL: profile, by thread"
    report --no-children --sort comm -g none
    echo "HIL: profile, by thread and library (1% or more)"
    report --no-children --sort comm,dso -g none --percent-limit 1
    echo "HIL: profile, the main thread's time by function, callees included (2% or more of all)"
    report --children --sort sym -g none --comm lifesignald --percent-limit 2
}
finish
