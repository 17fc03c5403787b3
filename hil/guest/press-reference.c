// press-reference: the least a C program does for a LifeSignal press, as a yardstick for
// lifesignald in the HIL guest (scenario "latency", docs/hil.md). When the button is released it
// stores a check-in in SQLite (WAL, synchronous=FULL, the daemon's check_ins table and INSERT, one
// IMMEDIATE transaction), then lights the acknowledgement LED for 200 ms, as the scenario
// configures the daemon's. No debounce, no logging, one thread, one poll().
//
//   press-reference CHIP_PATH BUTTON_LINE LED_LINE DATABASE
//
// Prints "press-reference: ready" once it holds both lines; runs until killed. Builds against
// libgpiod 1.x or 2.x, whichever gpiod.h the compiler finds (like Sources/CGPIOD).
#include <gpiod.h>
#include <poll.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/random.h>
#include <time.h>

#define CONSUMER "press-reference"
#define ACK_MS 200

static void fail(const char *what, const char *detail) {
    fprintf(stderr, "press-reference: %s: %s\n", what, detail);
    exit(1);
}

#ifdef GPIOD_LINE_BULK_MAX_LINES  // libgpiod 1.x (only it defines the bulk macros)
static struct gpiod_line *button, *led;
static void request_lines(const char *chip_path, const char *button_name, const char *led_name) {
    struct gpiod_chip *chip = gpiod_chip_open(chip_path);
    if (chip == NULL) fail(chip_path, "cannot open");
    button = gpiod_chip_find_line(chip, button_name);
    led = gpiod_chip_find_line(chip, led_name);
    if (button == NULL || led == NULL) fail(chip_path, "no such line");
    if (gpiod_line_request_both_edges_events_flags(button, CONSUMER,
            GPIOD_LINE_REQUEST_FLAG_ACTIVE_LOW | GPIOD_LINE_REQUEST_FLAG_BIAS_PULL_UP) < 0
        || gpiod_line_request_output(led, CONSUMER, 0) < 0)
        fail(chip_path, "cannot request the lines");
}
static int button_fd(void) { return gpiod_line_event_get_fd(button); }
// Reads one pending edge: 1 for a release (logical falling edge: the button is active-low).
static int read_release(void) {
    struct gpiod_line_event event;
    if (gpiod_line_event_read(button, &event) < 0) fail("button", "cannot read an event");
    return event.event_type == GPIOD_LINE_EVENT_FALLING_EDGE;
}
static void set_led(int on) {
    if (gpiod_line_set_value(led, on) < 0) fail("LED", "cannot set");
}
#else  // libgpiod 2.x
static struct gpiod_line_request *button, *led;
static struct gpiod_edge_event_buffer *events;
static unsigned int led_offset;
static struct gpiod_line_request *request_line(struct gpiod_chip *chip, const char *name, int output,
                                               unsigned int *offset) {
    int found = gpiod_chip_get_line_offset_from_name(chip, name);
    if (found < 0) fail(name, "no such line");
    *offset = (unsigned int)found;
    struct gpiod_line_settings *settings = gpiod_line_settings_new();
    struct gpiod_line_config *line_config = gpiod_line_config_new();
    struct gpiod_request_config *request_config = gpiod_request_config_new();
    if (output) {
        gpiod_line_settings_set_direction(settings, GPIOD_LINE_DIRECTION_OUTPUT);
        gpiod_line_settings_set_output_value(settings, GPIOD_LINE_VALUE_INACTIVE);
    } else {
        gpiod_line_settings_set_direction(settings, GPIOD_LINE_DIRECTION_INPUT);
        gpiod_line_settings_set_edge_detection(settings, GPIOD_LINE_EDGE_BOTH);
        gpiod_line_settings_set_bias(settings, GPIOD_LINE_BIAS_PULL_UP);
        gpiod_line_settings_set_active_low(settings, true);
    }
    gpiod_line_config_add_line_settings(line_config, offset, 1, settings);
    gpiod_request_config_set_consumer(request_config, CONSUMER);
    struct gpiod_line_request *request = gpiod_chip_request_lines(chip, request_config, line_config);
    if (request == NULL) fail(name, "cannot request the line");
    gpiod_request_config_free(request_config);
    gpiod_line_config_free(line_config);
    gpiod_line_settings_free(settings);
    return request;
}
static void request_lines(const char *chip_path, const char *button_name, const char *led_name) {
    struct gpiod_chip *chip = gpiod_chip_open(chip_path);
    if (chip == NULL) fail(chip_path, "cannot open");
    unsigned int button_offset;
    button = request_line(chip, button_name, 0, &button_offset);
    led = request_line(chip, led_name, 1, &led_offset);
    events = gpiod_edge_event_buffer_new(1);
    gpiod_chip_close(chip);
}
static int button_fd(void) { return gpiod_line_request_get_fd(button); }
static int read_release(void) {
    if (gpiod_line_request_read_edge_events(button, events, 1) < 1) fail("button", "cannot read an event");
    struct gpiod_edge_event *event = gpiod_edge_event_buffer_get_event(events, 0);
    return gpiod_edge_event_get_event_type(event) == GPIOD_EDGE_EVENT_FALLING_EDGE;
}
static void set_led(int on) {
    if (gpiod_line_request_set_value(led, led_offset, on ? GPIOD_LINE_VALUE_ACTIVE : GPIOD_LINE_VALUE_INACTIVE) < 0)
        fail("LED", "cannot set");
}
#endif

static sqlite3 *db;
static sqlite3_stmt *insert;
static char boot_id[37];

static void exec(const char *sql) {
    if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK) fail(sql, sqlite3_errmsg(db));
}

static long long microseconds(clockid_t clock) {
    struct timespec t;
    clock_gettime(clock, &t);
    return t.tv_sec * 1000000LL + t.tv_nsec / 1000;
}

static void open_store(const char *path) {
    if (sqlite3_open(path, &db) != SQLITE_OK) fail(path, sqlite3_errmsg(db));
    exec("PRAGMA journal_mode=WAL");
    exec("PRAGMA synchronous=FULL");
    exec("CREATE TABLE IF NOT EXISTS check_ins (id TEXT PRIMARY KEY NOT NULL CHECK (length(id) = 36), "
         "insertion_order INTEGER NOT NULL UNIQUE, wall_time_us INTEGER NOT NULL, uptime_us INTEGER NOT NULL, "
         "boot_id TEXT NOT NULL, wall_clock_synchronized INTEGER NOT NULL CHECK (wall_clock_synchronized IN (0, 1)), "
         "source TEXT NOT NULL CHECK (source IN ('button', 'cli')), uploaded_at_us INTEGER) STRICT");
    exec("CREATE INDEX IF NOT EXISTS check_ins_pending ON check_ins (insertion_order) WHERE uploaded_at_us IS NULL");
    const char *sql = "INSERT INTO check_ins (id, insertion_order, wall_time_us, uptime_us, boot_id, "
                      "wall_clock_synchronized, source) VALUES (?1, (SELECT coalesce(max(insertion_order), 0) + 1 "
                      "FROM check_ins), ?2, ?3, ?4, 0, 'button')";
    if (sqlite3_prepare_v2(db, sql, -1, &insert, NULL) != SQLITE_OK) fail("prepare", sqlite3_errmsg(db));
    FILE *file = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (file == NULL || fscanf(file, "%36s", boot_id) != 1) fail("boot_id", "cannot read");
    fclose(file);
}

// One check-in, durable when this returns: a random (version 4) UUID, the clocks, one commit.
static void store_check_in(void) {
    unsigned char r[16];
    char id[37];
    if (getrandom(r, sizeof r, 0) != sizeof r) fail("getrandom", "failed");
    r[6] = (r[6] & 0x0f) | 0x40;
    r[8] = (r[8] & 0x3f) | 0x80;
    snprintf(id, sizeof id, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", r[0], r[1],
             r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[9], r[10], r[11], r[12], r[13], r[14], r[15]);
    exec("BEGIN IMMEDIATE");
    sqlite3_bind_text(insert, 1, id, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(insert, 2, microseconds(CLOCK_REALTIME));
    sqlite3_bind_int64(insert, 3, microseconds(CLOCK_BOOTTIME));
    sqlite3_bind_text(insert, 4, boot_id, -1, SQLITE_STATIC);
    if (sqlite3_step(insert) != SQLITE_DONE) fail("insert", sqlite3_errmsg(db));
    sqlite3_reset(insert);
    exec("COMMIT");
}

int main(int argc, char **argv) {
    if (argc != 5) fail("usage", "press-reference CHIP_PATH BUTTON_LINE LED_LINE DATABASE");
    open_store(argv[4]);
    request_lines(argv[1], argv[2], argv[3]);
    printf("press-reference: ready\n");
    fflush(stdout);
    struct pollfd wait = { .fd = button_fd(), .events = POLLIN };
    long long led_off_at = 0;  // CLOCK_MONOTONIC µs while the acknowledgement shows, else 0
    for (;;) {
        int timeout = -1;
        if (led_off_at) {
            long long left = led_off_at - microseconds(CLOCK_MONOTONIC);
            timeout = left > 0 ? (int)((left + 999) / 1000) : 0;
        }
        int ready = poll(&wait, 1, timeout);
        if (ready < 0) fail("poll", "failed");
        if (ready == 0) {
            set_led(0);
            led_off_at = 0;
        } else if (read_release()) {
            store_check_in();
            set_led(1);
            led_off_at = microseconds(CLOCK_MONOTONIC) + ACK_MS * 1000;
        }
    }
}
