// sim-button: drives the simulated button (an active-low gpio-sim input) with exact timing, which
// the guest's shell cannot give (every busybox sleep is a fork and exec: milliseconds under TCG).
//
//   sim-button chatter BUTTON_PULL [BOUNCES [INTERVAL_US]]   press, bouncing BOUNCES times (2 edges
//                                                            each) INTERVAL_US apart, ends pressed
//   sim-button pulse BUTTON_PULL MICROSECONDS                 press that long, then release
//   sim-button latency BUTTON_PULL LED_VALUE PRESSES [WARMUP [HOLD_MS [GAP_MS [press|release [SAMPLES [STARTS]]]]]]
//   sim-button stats SAMPLES                                   the percentiles of a SAMPLES file
//
// latency: for each press: wait until the LED shows its resting value, wait GAP_MS, take CLOCK_MONOTONIC,
// pull the button low (write "pull-down" to gpio-sim's sim_gpioN/pull: the button is active-low),
// then re-read the LED's sim_gpioM/value from offset 0, yielding between reads, until it leaves
// its resting value; release after HOLD_MS. With "release" the clock starts at the release
// instead (lifesignald checks in when a short press ends), after holding HOLD_MS. On one vCPU this times "edge until the responder
// has set the LED and blocked again". Busy reading without sched_yield() starves the responder.
// Prints "latency: n=... p50=...us p90=...us p99=...us max=...us"; exits 1 if the LED stops
// answering. With SAMPLES it also appends each recorded time (µs, one a line) to that file, so
// that the rounds of a responder measured between others can be summed up by "stats" (same line).
// With STARTS it appends each timed press's start (CLOCK_MONOTONIC, ns, one a line), so that the
// moment the responder set the LED, which the kernel's gpio_value trace stamps on the same clock,
// can be paired with it: that time does not include the responder's work after the LED, which on
// one vCPU delays the driver's next read.
// Built static so the guest needs nothing for it.
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void sleep_us(long us) {
    struct timespec t = { us / 1000000, (us % 1000000) * 1000L };
    nanosleep(&t, NULL);
}

static void sleep_ms(long ms) { sleep_us(ms * 1000); }

static char read_value(int fd) {
    char c = '?';
    if (pread(fd, &c, 1, 0) != 1) { perror("read LED value"); exit(1); }
    return c;
}

static void write_pull(int fd, const char *pull) {
    if (pwrite(fd, pull, strlen(pull), 0) < 0) { perror("write button pull"); exit(1); }
}

// How long latency waits for the LED to answer or to come back to rest before it fails the
// press. Far above any answer: a host that stalls the whole guest for seconds (memory pressure
// from other builds) must not fail a responder that is merely not scheduled.
#define PATIENCE_NS 20000000000LL

static int compare(const void *a, const void *b) {
    long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}

static int open_pull(const char *path) {
    int fd = open(path, O_WRONLY);
    if (fd < 0) { perror(path); exit(2); }
    return fd;
}

static int chatter(int argc, char **argv) {
    int pull = open_pull(argv[0]);
    int bounces = argc > 1 ? atoi(argv[1]) : 10;
    long interval_us = argc > 2 ? atol(argv[2]) : 1000;
    for (int i = 0; i < bounces; i++) {
        write_pull(pull, "pull-down");
        sleep_us(interval_us);
        write_pull(pull, "pull-up");
        sleep_us(interval_us);
    }
    write_pull(pull, "pull-down");
    return 0;
}

static int pulse(int argc, char **argv) {
    if (argc < 2) return 2;
    int pull = open_pull(argv[0]);
    write_pull(pull, "pull-down");
    sleep_us(atol(argv[1]));
    write_pull(pull, "pull-up");
    return 0;
}

// Prints the summary line of n samples (µs), sorting them: percentiles by rank (n-1)·p/100.
static void report(long long *samples, int n) {
    qsort(samples, (size_t)n, sizeof(long long), compare);
#define PCT(p) (samples[(size_t)((n - 1) * (p) / 100)])
    printf("latency: n=%d p50=%lldus p90=%lldus p99=%lldus max=%lldus\n", n, PCT(50), PCT(90), PCT(99), samples[n - 1]);
#undef PCT
}

static int stats(char *path) {
    FILE *file = fopen(path, "r");
    if (file == NULL) { perror(path); return 2; }
    int n = 0, capacity = 1024;
    long long *samples = malloc((size_t)capacity * sizeof(long long));
    while (fscanf(file, "%lld", &samples[n]) == 1)
        if (++n == capacity) samples = realloc(samples, (size_t)(capacity *= 2) * sizeof(long long));
    fclose(file);
    if (n == 0) { fprintf(stderr, "%s: no samples\n", path); return 1; }
    report(samples, n);
    return 0;
}

static int latency(int argc, char **argv) {
    if (argc < 3) return 2;
    int presses = atoi(argv[2]);
    int warmup = argc > 3 ? atoi(argv[3]) : 20;
    long hold_ms = argc > 4 ? atol(argv[4]) : 10;
    long gap_ms = argc > 5 ? atol(argv[5]) : 10;
    int on_release = argc > 6 && strcmp(argv[6], "release") == 0;
    FILE *keep = argc > 7 ? fopen(argv[7], "a") : NULL;
    if (argc > 7 && keep == NULL) { perror(argv[7]); return 2; }
    FILE *keep_starts = argc > 8 ? fopen(argv[8], "a") : NULL;
    if (argc > 8 && keep_starts == NULL) { perror(argv[8]); return 2; }
    int pull = open_pull(argv[0]);
    int led = open(argv[1], O_RDONLY);
    if (pull < 0 || led < 0 || presses < 1) { perror("open"); return 2; }

    long long *samples = calloc((size_t)presses, sizeof(long long));
    long long *starts = calloc((size_t)presses, sizeof(long long));
    char resting = read_value(led);
    for (int i = 0; i < warmup + presses; i++) {
        long long deadline = now_ns() + PATIENCE_NS;
        while (read_value(led) != resting) {
            if (now_ns() > deadline) { fprintf(stderr, "press %d: LED did not return to rest\n", i); return 1; }
            sleep_ms(1);
        }
        sleep_ms(gap_ms);
        if (on_release) {
            write_pull(pull, "pull-down");
            sleep_ms(hold_ms);
        }
        long long start = now_ns();
        write_pull(pull, on_release ? "pull-up" : "pull-down");
        deadline = start + PATIENCE_NS;
        while (read_value(led) == resting) {
            if (now_ns() > deadline) { fprintf(stderr, "press %d: LED did not answer\n", i); return 1; }
            sched_yield();
        }
        long long elapsed = (now_ns() - start) / 1000;
        if (i >= warmup) { samples[i - warmup] = elapsed; starts[i - warmup] = start; }
        if (!on_release) {
            sleep_ms(hold_ms);
            write_pull(pull, "pull-up");
        }
    }
    if (keep != NULL) {
        for (int i = 0; i < presses; i++) fprintf(keep, "%lld\n", samples[i]);
        if (fclose(keep) != 0) { perror(argv[7]); return 2; }
    }
    if (keep_starts != NULL) {
        for (int i = 0; i < presses; i++) fprintf(keep_starts, "%lld\n", starts[i]);
        if (fclose(keep_starts) != 0) { perror(argv[8]); return 2; }
    }
    report(samples, presses);
    return 0;
}

int main(int argc, char **argv) {
    if (argc >= 3 && strcmp(argv[1], "chatter") == 0) return chatter(argc - 2, argv + 2);
    if (argc >= 4 && strcmp(argv[1], "pulse") == 0) return pulse(argc - 2, argv + 2);
    if (argc >= 5 && strcmp(argv[1], "latency") == 0) return latency(argc - 2, argv + 2);
    if (argc == 3 && strcmp(argv[1], "stats") == 0) return stats(argv[2]);
    fprintf(stderr, "usage: sim-button chatter PULL [BOUNCES [INTERVAL_US]] | pulse PULL US | "
                    "latency PULL LED_VALUE PRESSES [WARMUP [HOLD_MS [GAP_MS [press|release [SAMPLES [STARTS]]]]]] | stats SAMPLES\n");
    return 2;
}
