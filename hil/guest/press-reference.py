"""press-reference.py: what a short Python script does for a LifeSignal press, as a yardstick for
lifesignald in the HIL guest (scenario "latency", docs/hil.md). The same job as press-reference.c:
when the button is released, store a check-in in SQLite (WAL, synchronous=FULL, the daemon's
check_ins table and INSERT, one IMMEDIATE transaction), then light the acknowledgement LED for
200 ms. No debounce, no logging, one thread, one poll().

    python3 press-reference.py CHIP_PATH BUTTON_LINE LED_LINE DATABASE

Prints "press-reference: ready" once it holds both lines; runs until killed. Uses the `gpiod`
bindings of libgpiod 1.x or 2.x, whichever is installed (their APIs differ).
"""
import select
import sqlite3
import sys
import time
import uuid

import gpiod

CONSUMER = "press-reference"
ACK_S = 0.2


class Lines1:  # libgpiod 1.x bindings
    def __init__(self, chip_path, button_name, led_name):
        chip = gpiod.Chip(chip_path)
        self.button, self.led = chip.find_line(button_name), chip.find_line(led_name)
        self.button.request(consumer=CONSUMER, type=gpiod.LINE_REQ_EV_BOTH_EDGES,
                            flags=gpiod.LINE_REQ_FLAG_ACTIVE_LOW | gpiod.LINE_REQ_FLAG_BIAS_PULL_UP)
        self.led.request(consumer=CONSUMER, type=gpiod.LINE_REQ_DIR_OUT, default_val=0)
        self.fd = self.button.event_get_fd()

    def read_release(self):  # the button is active-low: a release is a logical falling edge
        return self.button.event_read().type == gpiod.LineEvent.FALLING_EDGE

    def set_led(self, on):
        self.led.set_value(1 if on else 0)


class Lines2:  # libgpiod 2.x bindings
    def __init__(self, chip_path, button_name, led_name):
        from gpiod.line import Bias, Direction, Edge, Value
        self.on, self.off, self.led_name = Value.ACTIVE, Value.INACTIVE, led_name
        self.button = gpiod.request_lines(chip_path, consumer=CONSUMER, config={button_name: gpiod.LineSettings(
            edge_detection=Edge.BOTH, bias=Bias.PULL_UP, active_low=True)})
        self.led = gpiod.request_lines(chip_path, consumer=CONSUMER, config={led_name: gpiod.LineSettings(
            direction=Direction.OUTPUT, output_value=Value.INACTIVE)})
        self.fd = self.button.fd

    def read_release(self):
        return self.button.read_edge_events(1)[0].event_type == gpiod.EdgeEvent.Type.FALLING_EDGE

    def set_led(self, on):
        self.led.set_value(self.led_name, self.on if on else self.off)


def open_store(path):
    store = sqlite3.connect(path, isolation_level=None)
    store.execute("PRAGMA journal_mode=WAL")
    store.execute("PRAGMA synchronous=FULL")
    store.execute("CREATE TABLE IF NOT EXISTS check_ins (id TEXT PRIMARY KEY NOT NULL CHECK (length(id) = 36), "
                  "insertion_order INTEGER NOT NULL UNIQUE, wall_time_us INTEGER NOT NULL, "
                  "uptime_us INTEGER NOT NULL, boot_id TEXT NOT NULL, wall_clock_synchronized INTEGER NOT NULL "
                  "CHECK (wall_clock_synchronized IN (0, 1)), source TEXT NOT NULL "
                  "CHECK (source IN ('button', 'cli')), uploaded_at_us INTEGER) STRICT")
    store.execute("CREATE INDEX IF NOT EXISTS check_ins_pending ON check_ins (insertion_order) "
                  "WHERE uploaded_at_us IS NULL")
    return store


def main():
    chip_path, button_name, led_name, database = sys.argv[1:5]
    store = open_store(database)
    with open("/proc/sys/kernel/random/boot_id") as file:
        boot_id = file.read().strip()
    lines = (Lines2 if hasattr(gpiod, "request_lines") else Lines1)(chip_path, button_name, led_name)
    print("press-reference: ready", flush=True)
    poller = select.poll()
    poller.register(lines.fd, select.POLLIN)
    led_off_at = None  # time.monotonic() while the acknowledgement shows
    while True:
        timeout = None if led_off_at is None else max(0, (led_off_at - time.monotonic()) * 1000)
        if not poller.poll(timeout):
            lines.set_led(False)
            led_off_at = None
        elif lines.read_release():
            store.execute("BEGIN IMMEDIATE")
            store.execute("INSERT INTO check_ins (id, insertion_order, wall_time_us, uptime_us, boot_id, "
                          "wall_clock_synchronized, source) VALUES (?1, (SELECT coalesce(max(insertion_order), 0) "
                          "+ 1 FROM check_ins), ?2, ?3, ?4, 0, 'button')",
                          (str(uuid.uuid4()), time.time_ns() // 1000,
                           time.clock_gettime_ns(time.CLOCK_BOOTTIME) // 1000, boot_id))
            store.execute("COMMIT")
            lines.set_led(True)
            led_off_at = time.monotonic() + ACK_S


if __name__ == "__main__":
    main()
