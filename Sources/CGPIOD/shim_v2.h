// lsgpio_ over libgpiod 2.x (kernel uAPI v2). Included by shim.h only.
//
// In 2.x a request outlives its chip and reads events into a buffer object; lsgpio_request keeps
// both together so Swift owns one handle. The kernel debounces (debounce_period_us) and numbers
// every event per line, which lets GPIOLibgpiod notice events lost to a full kernel queue.

static inline int lsgpio_api_major(void) { return 2; }
static inline const char *lsgpio_library_version(void) { return gpiod_api_version(); }
static inline bool lsgpio_has_kernel_debounce(void) { return true; }

// What an lsgpio_request points at with 2.x (kept out of Swift's sight: it sees an opaque pointer,
// as with 1.x, so the Swift code is the same for both).
struct lsgpio_v2_request {
    struct gpiod_line_request *request;
    struct gpiod_edge_event_buffer *events;  // NULL for outputs
    unsigned int offset;
};

static inline lsgpio_chip *lsgpio_chip_open(const char *path) {
    return (lsgpio_chip *)gpiod_chip_open(path);
}

static inline void lsgpio_chip_close(lsgpio_chip *chip) {
    gpiod_chip_close((struct gpiod_chip *)chip);
}

static inline int lsgpio_chip_describe(lsgpio_chip *chip, char *name, size_t name_size,
                                       char *label, size_t label_size, unsigned int *num_lines) {
    struct gpiod_chip_info *info = gpiod_chip_get_info((struct gpiod_chip *)chip);
    if (info == NULL) return -1;
    lsgpio_copy_text(name, name_size, gpiod_chip_info_get_name(info));
    lsgpio_copy_text(label, label_size, gpiod_chip_info_get_label(info));
    *num_lines = (unsigned int)gpiod_chip_info_get_num_lines(info);
    gpiod_chip_info_free(info);
    return 0;
}

static inline int lsgpio_chip_line_offset(lsgpio_chip *chip, const char *line_name) {
    return gpiod_chip_get_line_offset_from_name((struct gpiod_chip *)chip, line_name);
}

static inline int lsgpio_chip_line_describe(lsgpio_chip *chip, unsigned int offset,
                                            char *name, size_t name_size,
                                            char *consumer, size_t consumer_size, bool *used) {
    struct gpiod_line_info *info = gpiod_chip_get_line_info((struct gpiod_chip *)chip, offset);
    if (info == NULL) return -1;
    lsgpio_copy_text(name, name_size, gpiod_line_info_get_name(info));
    lsgpio_copy_text(consumer, consumer_size, gpiod_line_info_get_consumer(info));
    *used = gpiod_line_info_is_used(info);
    gpiod_line_info_free(info);
    return 0;
}

static inline enum gpiod_line_bias lsgpio_v2_bias(enum lsgpio_bias bias) {
    switch (bias) {
    case LSGPIO_BIAS_DISABLED: return GPIOD_LINE_BIAS_DISABLED;
    case LSGPIO_BIAS_PULL_UP: return GPIOD_LINE_BIAS_PULL_UP;
    case LSGPIO_BIAS_PULL_DOWN: return GPIOD_LINE_BIAS_PULL_DOWN;
    case LSGPIO_BIAS_AS_IS: default: return GPIOD_LINE_BIAS_AS_IS;
    }
}

/// Builds the three 2.x config objects, requests the line, and frees the configs on every path.
static inline lsgpio_request *lsgpio_request_line(lsgpio_chip *chip, unsigned int offset,
                                                  const char *consumer,
                                                  const struct lsgpio_line_settings *settings) {
    struct gpiod_line_settings *line_settings = gpiod_line_settings_new();
    struct gpiod_line_config *line_config = gpiod_line_config_new();
    struct gpiod_request_config *request_config = gpiod_request_config_new();
    struct lsgpio_v2_request *result = calloc(1, sizeof(*result));
    int saved_errno = ENOMEM;
    if (line_settings == NULL || line_config == NULL || request_config == NULL || result == NULL)
        goto fail;

    gpiod_line_settings_set_active_low(line_settings, settings->active_low);
    if (settings->output) {
        if (gpiod_line_settings_set_direction(line_settings, GPIOD_LINE_DIRECTION_OUTPUT) < 0
            || gpiod_line_settings_set_output_value(
                   line_settings, settings->initial_value ? GPIOD_LINE_VALUE_ACTIVE
                                                          : GPIOD_LINE_VALUE_INACTIVE) < 0)
            goto fail_errno;
    } else {
        if (gpiod_line_settings_set_direction(line_settings, GPIOD_LINE_DIRECTION_INPUT) < 0
            || gpiod_line_settings_set_edge_detection(line_settings, GPIOD_LINE_EDGE_BOTH) < 0
            || gpiod_line_settings_set_bias(line_settings, lsgpio_v2_bias(settings->bias)) < 0
            || gpiod_line_settings_set_event_clock(line_settings, GPIOD_LINE_CLOCK_MONOTONIC) < 0)
            goto fail_errno;
        gpiod_line_settings_set_debounce_period_us(line_settings, settings->debounce_us);
        result->events = gpiod_edge_event_buffer_new(16);
        if (result->events == NULL) goto fail_errno;
    }
    if (gpiod_line_config_add_line_settings(line_config, &offset, 1, line_settings) < 0)
        goto fail_errno;
    gpiod_request_config_set_consumer(request_config, consumer);
    result->request = gpiod_chip_request_lines((struct gpiod_chip *)chip, request_config, line_config);
    if (result->request == NULL) goto fail_errno;
    result->offset = offset;
    gpiod_request_config_free(request_config);
    gpiod_line_config_free(line_config);
    gpiod_line_settings_free(line_settings);
    return (lsgpio_request *)result;

fail_errno:
    saved_errno = errno;
fail:
    if (result != NULL && result->events != NULL) gpiod_edge_event_buffer_free(result->events);
    free(result);
    if (request_config != NULL) gpiod_request_config_free(request_config);
    if (line_config != NULL) gpiod_line_config_free(line_config);
    if (line_settings != NULL) gpiod_line_settings_free(line_settings);
    errno = saved_errno;
    return NULL;
}

static inline struct lsgpio_v2_request *lsgpio_v2(lsgpio_request *request) {
    return (struct lsgpio_v2_request *)request;
}

static inline void lsgpio_request_release(lsgpio_request *opaque) {
    struct lsgpio_v2_request *request = lsgpio_v2(opaque);
    gpiod_line_request_release(request->request);
    if (request->events != NULL) gpiod_edge_event_buffer_free(request->events);
    free(request);
}

static inline int lsgpio_request_fd(lsgpio_request *opaque) {
    return gpiod_line_request_get_fd(lsgpio_v2(opaque)->request);
}

static inline int lsgpio_request_get_value(lsgpio_request *opaque) {
    struct lsgpio_v2_request *request = lsgpio_v2(opaque);
    enum gpiod_line_value value = gpiod_line_request_get_value(request->request, request->offset);
    return value == GPIOD_LINE_VALUE_ERROR ? -1 : (value == GPIOD_LINE_VALUE_ACTIVE ? 1 : 0);
}

static inline int lsgpio_request_set_value(lsgpio_request *opaque, int value) {
    struct lsgpio_v2_request *request = lsgpio_v2(opaque);
    return gpiod_line_request_set_value(request->request, request->offset,
                                        value ? GPIOD_LINE_VALUE_ACTIVE : GPIOD_LINE_VALUE_INACTIVE);
}

/// Reads up to `capacity` pending events (one read; call only once the fd is readable).
static inline int lsgpio_request_read_events(lsgpio_request *opaque,
                                             struct lsgpio_edge_event *events,
                                             unsigned int capacity) {
    struct lsgpio_v2_request *request = lsgpio_v2(opaque);
    if (request->events == NULL) { errno = EINVAL; return -1; }
    if (capacity > 16) capacity = 16;
    int count = gpiod_line_request_read_edge_events(request->request, request->events, capacity);
    for (int i = 0; i < count; i++) {
        struct gpiod_edge_event *event = gpiod_edge_event_buffer_get_event(request->events, (unsigned long)i);
        events[i].timestamp_ns = gpiod_edge_event_get_timestamp_ns(event);
        events[i].rising = gpiod_edge_event_get_event_type(event) == GPIOD_EDGE_EVENT_RISING_EDGE;
        events[i].line_seqno = gpiod_edge_event_get_line_seqno(event);
    }
    return count;
}
