// Linux declarations that Swift's Glibc module leaves out: eventfd (prompt wake-up of poll loops),
// adjtimex (is the clock synchronised?), malloc_trim and pthread_setname_np (names the daemon's threads for top and gdb). All from glibc itself.
//
// No _GNU_SOURCE here on purpose: it changes the shape of structs that Swift's Glibc module also
// defines (fd_set, ...), and clang then refuses the two definitions. Declare single functions instead.
#ifndef LIFESIGNAL_CLINUXSUPPORT_SHIM_H
#define LIFESIGNAL_CLINUXSUPPORT_SHIM_H

#include <sys/eventfd.h>
#include <sys/timex.h>
// timerfd with TFD_TIMER_CANCEL_ON_SET: wakes when the wall clock is set or stepped (no polling).
#include <sys/timerfd.h>
// inotify: wakes when a device node appears in /dev (a GPIO chip whose driver loads late).
#include <sys/inotify.h>

// malloc_trim: hands the pages malloc holds free back to the kernel (LinuxIO's FreedMemory).
#include <malloc.h>

// glibc: int pthread_setname_np(pthread_t, const char *), pthread_t being unsigned long on Linux.
extern int pthread_setname_np(unsigned long thread, const char *name);

// 1 when the kernel's NTP state says the clock is synchronised (what timedatectl reports),
// 0 when it is not (TIME_ERROR: no NTP client has disciplined the clock since boot) or when the
// state cannot be read (adjtimex fails with -1, e.g. under a seccomp filter): an unknown clock is
// never a trusted one.
static inline int clinux_kernel_clock_synchronized(void) {
    struct timex status = {0};
    int state = adjtimex(&status);
    return state != -1 && state != TIME_ERROR;
}

#endif
