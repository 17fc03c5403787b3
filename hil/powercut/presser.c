// presser: the person at the button during the power-cut stage (hil/powercut/run). Presses the
// simulated button over and over, watches the acknowledgement LED, and reports each press and
// each acknowledgement on the serial console the moment it happens, until the power is cut.
//
//   presser BUTTON_PULL ACK_LED_VALUE FIRST_NUMBER [HOLD_MS [GAP_MS]]
//
// For each press: wait until the acknowledgement LED is at rest (0), wait GAP_MS, print
// "POWERCUT: press N", pull the button low (gpio-sim's sim_gpioN/pull: the button is active-low)
// for HOLD_MS, release it (lifesignald checks in when a short press ends), then poll the LED's
// sim_gpioM/value until it lights, print "POWERCUT: ack N" and wait until the console has sent
// it (tcdrain) before the next press. So at most one acknowledged press at a time is not yet
// known to the host: the one between the LED and the end of its line on the serial port.
//
// The LED is polled every millisecond rather than with sched_yield(): while the daemon waits on
// the disk, a yielding loop would keep the one vCPU busy and slow everything else under TCG.
// Exits 1 (after saying why) when an acknowledgement does not come or does not end within 20 s.
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

static long long now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000LL + t.tv_nsec / 1000000;
}

static void sleep_ms(long ms) {
    struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };
    nanosleep(&t, NULL);
}

static int open_or_die(const char *path, int flags) {
    int fd = open(path, flags);
    if (fd < 0) { perror(path); exit(2); }
    return fd;
}

static char led_value(int fd) {
    char c = '?';
    if (pread(fd, &c, 1, 0) != 1) { perror("read LED value"); exit(2); }
    return c;
}

static void write_pull(int fd, const char *pull) {
    if (pwrite(fd, pull, strlen(pull), 0) < 0) { perror("write button pull"); exit(2); }
}

// Prints one line and returns once the console has sent it, not merely queued it.
static void report(const char *what, long n) {
    printf("POWERCUT: %s %ld\n", what, n);
    fflush(stdout);
    tcdrain(STDOUT_FILENO);  // fails harmlessly when stdout is not a terminal
}

// Waits until the LED shows `level`; 0 after 20 s.
static int await_led(int led, char level) {
    long long deadline = now_ms() + 20000;
    while (led_value(led) != level) {
        if (now_ms() > deadline) return 0;
        sleep_ms(1);
    }
    return 1;
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: presser BUTTON_PULL ACK_LED_VALUE FIRST_NUMBER [HOLD_MS [GAP_MS]]\n");
        return 2;
    }
    int pull = open_or_die(argv[1], O_WRONLY);
    int led = open_or_die(argv[2], O_RDONLY);
    long n = atol(argv[3]);
    long hold_ms = argc > 4 ? atol(argv[4]) : 100;
    long gap_ms = argc > 5 ? atol(argv[5]) : 50;
    for (;; n++) {
        if (!await_led(led, '0')) { report("FAIL acknowledgement LED stuck on before press", n); return 1; }
        sleep_ms(gap_ms);
        report("press", n);
        write_pull(pull, "pull-down");
        sleep_ms(hold_ms);
        write_pull(pull, "pull-up");
        if (!await_led(led, '1')) { report("FAIL no acknowledgement within 20 s for press", n); return 1; }
        report("ack", n);
    }
}
