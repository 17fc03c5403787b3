# Scenario "powercut": one boot of the power-cut stage (hil/powercut/run, docs/hil.md). The
# check-in store lives on ext4 on the virtual disk /dev/vda, which survives the power cuts the
# host makes by killing QEMU. Each boot mounts it (ext4 replays its journal), starts lifesignald
# (SQLite recovers its WAL), reports what the device came up with, then, with powercut.mode=press,
# presses the button until the power goes; with powercut.mode=verify it stops the daemon and
# unmounts cleanly. The host judges: this script only reports, in "POWERCUT:" lines.
#
# Kernel command line: powercut.mode=press|verify, powercut.first=N (number of the first press
# of this boot, for the log), powercut.mutant=none|nosync|latesync (deliberate mutants, see
# hil/powercut/nosync.c).
. /hil/daemon.sh
arg() { sed -n "s/.*powercut\.$1=\([a-z0-9]*\).*/\1/p" /proc/cmdline; }
mode=$(arg mode) first=$(arg first) mutant=$(arg mutant)
STORE=/data/lifesignal.sqlite
ACK_LED=13  # red: the acknowledgement is made a steady red, which nothing else here shows

# Debian builds ext4 and virtio-blk as modules; crc32c first, since ext4's checksums ask for it.
for module in crc32c_generic crc16 mbcache jbd2 ext4 virtio_blk; do
    insmod "/lib/modules/powercut/$module.ko" || { echo "POWERCUT: FAIL insmod $module"; exit 1; }
done
wait_for '[ -b /dev/vda ]' 10 || { echo "POWERCUT: FAIL no /dev/vda"; exit 1; }
mkdir -p /data
mount -t ext4 /dev/vda /data || { echo "POWERCUT: FAIL mount /dev/vda (ext4)"; dmesg | tail -n 5; exit 1; }
echo "POWERCUT: mounted"

# The guest's wall clock comes from QEMU's RTC, i.e. the host's synchronised clock; say so the
# way systemd-timesyncd does, so that check-ins of an earlier boot count by wall time
# (docs/time.md) and the device can come up checked in.
mkdir -p /run/systemd/timesync && touch /run/systemd/timesync/synchronized

# Acknowledgement: a steady red for 200 ms (the default green blink would be harder to tell from
# "checked in", and a short one lets more presses fit between two cuts).
write_config '[feedback]' 'acknowledgement = "200ms"' '[patterns.acknowledged]' 'red = "on"'
preload= sync=
case $mutant in
    nosync) preload=/lib/powercut/nosync.so sync=none ;;
    latesync) preload=/lib/powercut/nosync.so sync=late ;;
esac
LD_PRELOAD=$preload POWERCUT_SYNC=$sync lifesignald --config "$CONF" >> /tmp/lifesignald.log 2>&1 & DAEMON=$!
if ! wait_for "ctl status" 30 || ! wait_for '[ "$(indicator)" != starting ]' 10; then
    echo "POWERCUT: FAIL lifesignald did not come up; its log:"; tail -n 20 /tmp/lifesignald.log
    exit 1
fi

stored=$(sqlite3 -readonly "$STORE" 'SELECT count(*) FROM check_ins' 2>&1)
history=$(ctl history --json --limit 10000 | grep -c '"id"')
integrity=$(sqlite3 -readonly "$STORE" 'PRAGMA integrity_check' 2>&1 | tr '\n ' ';_')
echo "POWERCUT: boot stored=$stored history=$history integrity=${integrity%;} indicator=$(indicator) leds=$(leds)"
# Anything but the phases a boot may come up in: say why, so a failed boot names its cause.
case $(indicator) in checked_in|never_checked_in) ;; *) ctl status 2>&1 | sed 's/^/POWERCUT: status: /' ;; esac

if [ "$mode" = press ]; then
    echo "POWERCUT: pressing"
    exec presser "$SIM/sim_gpio$BUTTON/pull" "$SIM/sim_gpio$ACK_LED/value" "${first:-1}"
fi
kill -TERM $DAEMON; wait $DAEMON; status=$?
umount /data || { echo "POWERCUT: FAIL umount /data"; exit 1; }
echo "POWERCUT: stopped exit=$status, unmounted"
