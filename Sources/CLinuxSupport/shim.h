// Linux declarations that Swift's Glibc module leaves out: eventfd (prompt wake-up of poll loops)
// and pthread_setname_np (names the daemon's threads for top and gdb). All from glibc itself.
//
// No _GNU_SOURCE here on purpose: it changes the shape of structs that Swift's Glibc module also
// defines (fd_set, ...), and clang then refuses the two definitions. Declare single functions instead.
#ifndef LIFESIGNAL_CLINUXSUPPORT_SHIM_H
#define LIFESIGNAL_CLINUXSUPPORT_SHIM_H

#include <sys/eventfd.h>

// glibc: int pthread_setname_np(pthread_t, const char *), pthread_t being unsigned long on Linux.
extern int pthread_setname_np(unsigned long thread, const char *name);

#endif
