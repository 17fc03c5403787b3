// The one door to libgpiod (Debian package libgpiod-dev); only GPIOLibgpiod imports it.
//
// libgpiod 1.x (Debian 12 / Raspberry Pi OS bookworm) and 2.x (Debian 13 / trixie) ship the same
// header name, gpiod.h, with incompatible APIs. This shim gives Swift one small API over either,
// chosen when the package is compiled: whichever gpiod.h pkg-config points at decides.
//
// Conventions of every lsgpio_ function: a pointer result is NULL on failure, an int result is -1
// on failure, and errno then says why (libgpiod sets errno in both versions). Text is copied into
// caller buffers so no pointer into a libgpiod object outlives the call.
#ifndef LIFESIGNAL_CGPIOD_SHIM_H
#define LIFESIGNAL_CGPIOD_SHIM_H

#include <gpiod.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// An open GPIO chip. Opaque to Swift; one owner closes it with lsgpio_chip_close.
typedef struct lsgpio_chip lsgpio_chip;
/// One requested line (input with edge events, or output). One owner releases it with
/// lsgpio_request_release; with libgpiod 1.x the chip must stay open until then.
typedef struct lsgpio_request lsgpio_request;

enum lsgpio_bias {
    LSGPIO_BIAS_AS_IS = 0,
    LSGPIO_BIAS_DISABLED = 1,
    LSGPIO_BIAS_PULL_UP = 2,
    LSGPIO_BIAS_PULL_DOWN = 3,
};

/// How to request one line. Values are logical: with active_low, 1 means "electrically low".
struct lsgpio_line_settings {
    bool output;
    bool active_low;
    enum lsgpio_bias bias;
    /// Outputs only: the value the line takes at the moment of the request.
    int initial_value;
    /// Inputs only: kernel debounce; ignored by libgpiod 1.x (check lsgpio_has_kernel_debounce).
    uint32_t debounce_us;
};

/// One edge of an input line, on CLOCK_MONOTONIC.
struct lsgpio_edge_event {
    uint64_t timestamp_ns;
    /// Logical rising edge (towards active); false for a falling edge.
    bool rising;
    /// The kernel's per-line sequence number (1, 2, ...), or 0 when the API has none (1.x).
    uint64_t line_seqno;
};

/// Copies a possibly-NULL C string into a buffer, always terminated.
static inline void lsgpio_copy_text(char *buffer, size_t size, const char *text) {
    if (buffer == NULL || size == 0) return;
    snprintf(buffer, size, "%s", text != NULL ? text : "");
}

#ifdef GPIOD_LINE_BULK_MAX_LINES
// Only libgpiod 1.x defines the line-bulk macros; 2.x defines no macros at all.
#include "shim_v1.h"
#else
#include "shim_v2.h"
#endif

#endif
