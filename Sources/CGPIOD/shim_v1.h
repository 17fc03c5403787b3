// lsgpio_ over libgpiod 1.x (kernel uAPI v1). Included by shim.h only.
//
// In 1.x a line handle belongs to its chip: the request *is* the chip's gpiod_line, released with
// gpiod_line_release, and invalid once the chip is closed. There is no kernel debounce and no
// event sequence number; GPIOLibgpiod debounces in user space instead.

static inline int lsgpio_api_major(void) { return 1; }
static inline const char *lsgpio_library_version(void) { return gpiod_version_string(); }
static inline bool lsgpio_has_kernel_debounce(void) { return false; }

static inline lsgpio_chip *lsgpio_chip_open(const char *path) {
    return (lsgpio_chip *)gpiod_chip_open(path);
}

static inline void lsgpio_chip_close(lsgpio_chip *chip) {
    gpiod_chip_close((struct gpiod_chip *)chip);
}

static inline int lsgpio_chip_describe(lsgpio_chip *chip, char *name, size_t name_size,
                                       char *label, size_t label_size, unsigned int *num_lines) {
    struct gpiod_chip *c = (struct gpiod_chip *)chip;
    lsgpio_copy_text(name, name_size, gpiod_chip_name(c));
    lsgpio_copy_text(label, label_size, gpiod_chip_label(c));
    *num_lines = gpiod_chip_num_lines(c);
    return 0;
}

static inline int lsgpio_chip_line_offset(lsgpio_chip *chip, const char *line_name) {
    struct gpiod_line *line = gpiod_chip_find_line((struct gpiod_chip *)chip, line_name);
    if (line == NULL) {
        if (errno == 0) errno = ENOENT;
        return -1;
    }
    return (int)gpiod_line_offset(line);
}

static inline int lsgpio_chip_line_describe(lsgpio_chip *chip, unsigned int offset,
                                            char *name, size_t name_size,
                                            char *consumer, size_t consumer_size, bool *used) {
    struct gpiod_line *line = gpiod_chip_get_line((struct gpiod_chip *)chip, offset);
    if (line == NULL) return -1;
    // The chip caches line info from when it first handed the line out; refresh it.
    if (gpiod_line_update(line) < 0) return -1;
    lsgpio_copy_text(name, name_size, gpiod_line_name(line));
    lsgpio_copy_text(consumer, consumer_size, gpiod_line_consumer(line));
    *used = gpiod_line_is_used(line);
    return 0;
}

static inline int lsgpio_v1_bias_flag(enum lsgpio_bias bias) {
    switch (bias) {
    case LSGPIO_BIAS_DISABLED: return GPIOD_LINE_REQUEST_FLAG_BIAS_DISABLE;
    case LSGPIO_BIAS_PULL_UP: return GPIOD_LINE_REQUEST_FLAG_BIAS_PULL_UP;
    case LSGPIO_BIAS_PULL_DOWN: return GPIOD_LINE_REQUEST_FLAG_BIAS_PULL_DOWN;
    case LSGPIO_BIAS_AS_IS: default: return 0;
    }
}

static inline lsgpio_request *lsgpio_request_line(lsgpio_chip *chip, unsigned int offset,
                                                  const char *consumer,
                                                  const struct lsgpio_line_settings *settings) {
    struct gpiod_line *line = gpiod_chip_get_line((struct gpiod_chip *)chip, offset);
    if (line == NULL) return NULL;
    struct gpiod_line_request_config config = {
        .consumer = consumer,
        .request_type = settings->output ? GPIOD_LINE_REQUEST_DIRECTION_OUTPUT
                                         : GPIOD_LINE_REQUEST_EVENT_BOTH_EDGES,
        .flags = (settings->active_low ? GPIOD_LINE_REQUEST_FLAG_ACTIVE_LOW : 0)
                 | lsgpio_v1_bias_flag(settings->bias),
    };
    if (gpiod_line_request(line, &config, settings->initial_value) < 0) return NULL;
    return (lsgpio_request *)line;
}

static inline void lsgpio_request_release(lsgpio_request *request) {
    gpiod_line_release((struct gpiod_line *)request);
}

static inline int lsgpio_request_fd(lsgpio_request *request) {
    return gpiod_line_event_get_fd((struct gpiod_line *)request);
}

static inline int lsgpio_request_get_value(lsgpio_request *request) {
    return gpiod_line_get_value((struct gpiod_line *)request);
}

static inline int lsgpio_request_set_value(lsgpio_request *request, int value) {
    return gpiod_line_set_value((struct gpiod_line *)request, value);
}

/// Reads up to `capacity` pending events (one read; call only once the fd is readable).
static inline int lsgpio_request_read_events(lsgpio_request *request,
                                             struct lsgpio_edge_event *events,
                                             unsigned int capacity) {
    struct gpiod_line_event raw[16];
    if (capacity > 16) capacity = 16;
    int count = gpiod_line_event_read_multiple((struct gpiod_line *)request, raw, capacity);
    for (int i = 0; i < count; i++) {
        events[i].timestamp_ns = (uint64_t)raw[i].ts.tv_sec * 1000000000u + (uint64_t)raw[i].ts.tv_nsec;
        events[i].rising = raw[i].event_type == GPIOD_LINE_EVENT_RISING_EDGE;
        events[i].line_seqno = 0;
    }
    return count;
}
