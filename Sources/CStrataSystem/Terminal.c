// Reading a passphrase with echo off, and putting the terminal back however the read ends: on return, and on
// the signals that end a process from the keyboard or the session (Ctrl-C, Ctrl-\, a hang-up, a kill).
//
// The restoring handler must be async-signal-safe, so it lives here in C: it only calls tcsetattr, sigaction
// and raise (all on POSIX's list of safe functions) on state written before the handlers were installed.
#include "CStrataSystem.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <termios.h>

static const int strata_terminal_signals[] = {SIGINT, SIGQUIT, SIGTERM, SIGHUP};
enum { strata_terminal_signal_count = sizeof(strata_terminal_signals) / sizeof(strata_terminal_signals[0]) };

static struct termios strata_saved;
static int strata_saved_fd = -1;
static volatile sig_atomic_t strata_echo_is_off = 0;
static struct sigaction strata_previous[strata_terminal_signal_count];

static void strata_put_back_handlers(void) {
    for (int index = 0; index < strata_terminal_signal_count; index++) {
        sigaction(strata_terminal_signals[index], &strata_previous[index], NULL);
    }
}

// Puts the terminal back, puts back the handlers that were there before, and raises the signal again: it then
// does what it would have done (end the process, as a shell expects of Ctrl-C).
static void strata_terminal_on_signal(int signal_number) {
    if (strata_echo_is_off) {
        tcsetattr(strata_saved_fd, TCSANOW, &strata_saved);
        strata_echo_is_off = 0;
    }
    strata_put_back_handlers();
    raise(signal_number);
}

int strata_terminal_echo_off(int fd) {
    if (strata_echo_is_off) {
        errno = EBUSY;
        return -1;
    }
    struct termios silent;
    if (tcgetattr(fd, &strata_saved) != 0) return -1;
    strata_saved_fd = fd;
    struct sigaction handler;
    memset(&handler, 0, sizeof handler);
    handler.sa_handler = strata_terminal_on_signal;
    sigemptyset(&handler.sa_mask);
    for (int index = 0; index < strata_terminal_signal_count; index++) {
        sigaddset(&handler.sa_mask, strata_terminal_signals[index]);
    }
    for (int index = 0; index < strata_terminal_signal_count; index++) {
        // A signal ignored on entry (a program started under nohup, or by a parent that ignores Ctrl-C) stays
        // ignored: it cannot end the read, so it needs no handler.
        sigaction(strata_terminal_signals[index], NULL, &strata_previous[index]);
        if (strata_previous[index].sa_handler != SIG_IGN) {
            sigaction(strata_terminal_signals[index], &handler, NULL);
        }
    }
    silent = strata_saved;
    silent.c_lflag &= ~(tcflag_t)(ECHO | ECHOE | ECHOK | ECHONL);
    strata_echo_is_off = 1;
    if (tcsetattr(fd, TCSAFLUSH, &silent) != 0) {
        int saved_errno = errno;
        strata_echo_is_off = 0;
        strata_put_back_handlers();
        errno = saved_errno;
        return -1;
    }
    return 0;
}

int strata_terminal_restore(void) {
    if (!strata_echo_is_off) return 0;
    int result = tcsetattr(strata_saved_fd, TCSANOW, &strata_saved);
    int saved_errno = errno;
    strata_echo_is_off = 0;
    strata_put_back_handlers();
    errno = saved_errno;
    return result;
}
