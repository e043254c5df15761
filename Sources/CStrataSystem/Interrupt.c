// Stopping a long command cleanly on Ctrl-C (SIGINT), SIGTERM or a hang-up (SIGHUP).
//
// The first signal only records itself: the command polls `strata_interrupt_caught`, stops, removes what it
// made and puts the terminal back on its own thread, where anything may be called. A second signal means the
// person does not want to wait: the handler then writes the terminal's restoring bytes (set beforehand by the
// progress bar), puts back the previous handlers and raises the signal again, which ends the process as it
// would have. Everything the handler does (write, sigaction, raise) is on POSIX's list of async-signal-safe
// functions and reads only state written before it could run.
#include "CStrataSystem.h"

#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

static const int strata_interrupt_signals[] = {SIGINT, SIGTERM, SIGHUP};
enum { strata_interrupt_signal_count = sizeof(strata_interrupt_signals) / sizeof(strata_interrupt_signals[0]) };

static volatile sig_atomic_t strata_interrupt_signal = 0;
static volatile sig_atomic_t strata_interrupt_is_trapped = 0;
static struct sigaction strata_interrupt_previous[strata_interrupt_signal_count];

static char strata_interrupt_restore_bytes[64];
static volatile sig_atomic_t strata_interrupt_restore_length = 0;
static int strata_interrupt_restore_fd = 2;

static void strata_interrupt_put_back(void) {
    for (int index = 0; index < strata_interrupt_signal_count; index++) {
        sigaction(strata_interrupt_signals[index], &strata_interrupt_previous[index], NULL);
    }
    strata_interrupt_is_trapped = 0;
}

static void strata_interrupt_on_signal(int signal_number) {
    if (strata_interrupt_signal == 0) {
        strata_interrupt_signal = signal_number;
        return;
    }
    if (strata_interrupt_restore_length > 0) {
        ssize_t ignored = write(strata_interrupt_restore_fd, strata_interrupt_restore_bytes,
                                (size_t)strata_interrupt_restore_length);
        (void)ignored;
    }
    strata_interrupt_put_back();
    raise(signal_number);
}

int strata_interrupt_trap(void) {
    if (strata_interrupt_is_trapped) return 0;
    strata_interrupt_signal = 0;
    struct sigaction handler;
    memset(&handler, 0, sizeof handler);
    handler.sa_handler = strata_interrupt_on_signal;
    handler.sa_flags = SA_RESTART;
    sigemptyset(&handler.sa_mask);
    for (int index = 0; index < strata_interrupt_signal_count; index++) {
        sigaddset(&handler.sa_mask, strata_interrupt_signals[index]);
    }
    for (int index = 0; index < strata_interrupt_signal_count; index++) {
        // A signal ignored on entry (under nohup, or a parent that ignores Ctrl-C) stays ignored.
        if (sigaction(strata_interrupt_signals[index], NULL, &strata_interrupt_previous[index]) != 0) return -1;
        if (strata_interrupt_previous[index].sa_handler != SIG_IGN) {
            if (sigaction(strata_interrupt_signals[index], &handler, NULL) != 0) return -1;
        }
    }
    strata_interrupt_is_trapped = 1;
    return 0;
}

int strata_interrupt_caught(void) { return strata_interrupt_signal; }

int strata_interrupt_release(void) {
    if (strata_interrupt_is_trapped) strata_interrupt_put_back();
    return 0;
}

int strata_interrupt_set_restore(int fd, const void *bytes, size_t length) {
    strata_interrupt_restore_length = 0;
    if (length > sizeof strata_interrupt_restore_bytes) length = sizeof strata_interrupt_restore_bytes;
    if (length > 0) memcpy(strata_interrupt_restore_bytes, bytes, length);
    strata_interrupt_restore_fd = fd;
    strata_interrupt_restore_length = (sig_atomic_t)length;
    return 0;
}

int strata_interrupt_raise(int signal_number) {
    struct sigaction fallback;
    memset(&fallback, 0, sizeof fallback);
    fallback.sa_handler = SIG_DFL;
    sigemptyset(&fallback.sa_mask);
    if (sigaction(signal_number, &fallback, NULL) != 0) return -1;
    sigset_t pending;
    sigemptyset(&pending);
    sigaddset(&pending, signal_number);
    sigprocmask(SIG_UNBLOCK, &pending, NULL);
    return raise(signal_number);
}

int strata_terminal_columns(int fd) {
    struct winsize size;
    memset(&size, 0, sizeof size);
    if (ioctl(fd, TIOCGWINSZ, &size) != 0) return -1;
    return size.ws_col;
}
