// clock-sync: marks the kernel's clock synchronised, as an NTP client does (adjtimex: a status
// without STA_UNSYNC and a maximum error of 0), so that the systemd stage can check that the
// sandboxed daemon still reads that state; the guest has no network and no NTP client. Prints
// the clock state adjtimex returns; exits 1 if the kernel still says "unsynchronised". Built
// static on the host by hil/systemd/run.
#include <stdio.h>
#include <string.h>
#include <sys/timex.h>

int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "--read") == 0) {
        struct timex now = {0};
        int state = adjtimex(&now);
        if (state == -1) { perror("adjtimex"); return 2; }
        printf("kernel clock state %d (%s)\n", state, state == TIME_ERROR ? "unsynchronised" : "synchronised");
        return state == TIME_ERROR;
    }
    struct timex settings = {
        .modes = ADJ_STATUS | ADJ_MAXERROR | ADJ_ESTERROR,
        .status = 0, .maxerror = 0, .esterror = 0,
    };
    int state = adjtimex(&settings);
    if (state == -1) { perror("adjtimex"); return 1; }
    printf("kernel clock state %d (%s)\n", state, state == TIME_ERROR ? "unsynchronised" : "synchronised");
    return state == TIME_ERROR;
}
