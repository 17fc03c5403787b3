// nosync.so: deliberate mutants for the power-cut stage, never shipped. Preloaded into the guest's
// lifesignald (LD_PRELOAD) only when hil/powercut/run is asked for a mutant, to show that the
// stage catches a daemon that acknowledges before its check-in is durable:
//
//   POWERCUT_SYNC=none  fsync, fdatasync and friends return success and do nothing: SQLite's
//                       commit returns while the check-in is only in the guest's page cache, and
//                       the daemon acknowledges it there. SIGKILL keeps the page cache, so the
//                       SIGKILL power-loss test cannot tell this from the real daemon.
//   POWERCUT_SYNC=late  they return at once and the real fdatasync runs 50 ms later on a thread
//                       of its own: the acknowledgement comes 50 ms before the commit is durable,
//                       a window only a cut right after an acknowledgement hits.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int late(void) {
    const char *mode = getenv("POWERCUT_SYNC");
    return mode != NULL && strcmp(mode, "late") == 0;
}

static void *sync_later(void *argument) {
    int fd = (int)(long)argument;
    struct timespec delay = { 0, 50 * 1000000L };
    nanosleep(&delay, NULL);
    int (*real)(int) = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
    if (real != NULL) real(fd);
    close(fd);
    return NULL;
}

static int pretend(int fd) {
    if (late()) {
        int copy = dup(fd);  // the caller may close fd before the thread runs
        pthread_t thread;
        if (copy >= 0 && pthread_create(&thread, NULL, sync_later, (void *)(long)copy) == 0) {
            pthread_detach(thread);
        } else if (copy >= 0) {
            close(copy);
        }
    }
    return 0;
}

int fsync(int fd) { return pretend(fd); }
int fdatasync(int fd) { return pretend(fd); }
int syncfs(int fd) { (void)fd; return 0; }
void sync(void) {}
int sync_file_range(int fd, off_t offset, off_t nbytes, unsigned int flags) {
    (void)fd; (void)offset; (void)nbytes; (void)flags;
    return 0;
}
