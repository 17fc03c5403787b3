#!/usr/bin/env python3
"""The smallest program that does what lifesignald does for a press, as a yardstick for it.

gpiozero's mock pins stand for the button and the acknowledgement LED; a release stores the
check-in in SQLite (WAL, synchronous=FULL: the commit returns after fdatasync, as the daemon's
does) and only then lights the LED. `scripts/bench --phases presses` runs it with the daemon's press
count and spacing on the same disk and prints both, and their ratio (BENCHMARKS.md).

Usage: press-reference.py WORK_DIR PRESSES SPACING_MS [DEBOUNCE_MS]
With DEBOUNCE_MS (the daemon's is 30) a level counts once it has held that long, as the daemon's
debouncer does (a timer restarted on every edge), and the time is taken from the release plus the
debounce period, as the bench takes the daemon's; without it the release itself stores.
Prints one line: "reference: n=N p50=Xus p99=Yus max=Zus".
"""
import os
import sqlite3
import sys
import threading
import time
import uuid

from gpiozero import LED, Button, Device
from gpiozero.pins.mock import MockFactory


def main():
    work_dir, presses, spacing_ms = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
    debounce = float(sys.argv[4]) / 1000 if len(sys.argv) > 4 else 0.0
    os.makedirs(work_dir, exist_ok=True)
    path = os.path.join(work_dir, "reference.sqlite")
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(path + suffix):
            os.remove(path + suffix)
    database = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    database.execute("PRAGMA journal_mode=WAL")
    database.execute("PRAGMA synchronous=FULL")
    database.execute("CREATE TABLE check_ins (id TEXT PRIMARY KEY, wall_time TEXT NOT NULL, "
                     "uptime_us INTEGER NOT NULL, source TEXT NOT NULL)")

    Device.pin_factory = MockFactory()
    button = Button(17, pull_up=True, bounce_time=None)
    led = LED(13)
    acknowledged = threading.Event()
    acknowledged_at = [0]

    def store_and_acknowledge():
        database.execute("BEGIN IMMEDIATE")
        database.execute("INSERT INTO check_ins VALUES (?, ?, ?, 'button')",
                         (str(uuid.uuid4()), time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                          time.clock_gettime_ns(time.CLOCK_BOOTTIME) // 1000))
        database.execute("COMMIT")
        led.on()
        acknowledged_at[0] = time.monotonic_ns()
        acknowledged.set()

    if debounce:
        settled_pressed = [False]
        timer = [None]

        def settled():
            if button.is_pressed:
                settled_pressed[0] = True
            elif settled_pressed[0]:
                settled_pressed[0] = False
                store_and_acknowledge()

        def edge():
            if timer[0] is not None:
                timer[0].cancel()
            timer[0] = threading.Timer(debounce, settled)
            timer[0].start()

        button.when_pressed = edge
        button.when_released = edge
    else:
        button.when_released = store_and_acknowledge

    pin = Device.pin_factory.pin(17)
    latencies = []
    for _ in range(presses):
        acknowledged.clear()
        pin.drive_low()
        time.sleep(debounce + 0.02)
        start = time.monotonic_ns() + int(debounce * 1e9)
        pin.drive_high()
        if not acknowledged.wait(5):
            sys.exit("reference: a press was not acknowledged within 5 s")
        latencies.append((acknowledged_at[0] - start) // 1000)
        led.off()
        time.sleep(spacing_ms / 1000)

    (count,) = database.execute("SELECT count(*) FROM check_ins").fetchone()
    if count != presses:
        sys.exit(f"reference: {count} of {presses} check-ins stored")
    latencies.sort()

    def rank(p):  # nearest rank, as the bench's Sample
        return latencies[max(0, -(-len(latencies) * p // 100) - 1)]

    print(f"reference: n={len(latencies)} p50={rank(50)}us p99={rank(99)}us max={latencies[-1]}us")


if __name__ == "__main__":
    main()
