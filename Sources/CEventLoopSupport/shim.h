// ppoll for the single-thread executor's loop: it waits on its wake-up eventfd with a timeout of
// nanoseconds, so a Task.sleep ends when it should rather than up to a millisecond late (poll's
// timeout is whole milliseconds).
//
// Swift's Glibc module declares ppoll only under _GNU_SOURCE, which would change the shape of
// structs that module also defines; declare the one function instead (glibc has it in every build).
#ifndef LIFESIGNAL_CEVENTLOOPSUPPORT_SHIM_H
#define LIFESIGNAL_CEVENTLOOPSUPPORT_SHIM_H

#include <poll.h>
#include <signal.h>
#include <time.h>

extern int ppoll(struct pollfd *fds, nfds_t nfds, const struct timespec *timeout, const sigset_t *sigmask);

#endif
