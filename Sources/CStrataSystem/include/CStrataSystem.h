#ifndef STRATA_CSTRATASYSTEM_H
#define STRATA_CSTRATASYSTEM_H
// System headers the Swift overlays of Glibc and Darwin do not export.
#include <sys/types.h>
#include <sys/xattr.h>

#include <stddef.h>
#include <stdint.h>
// Atomic access to a 64-bit counter in memory shared between processes (a MAP_SHARED mapping): Swift's
// `Atomic` lives only in memory Swift allocated, so the catalog's change counter is read and bumped here.
static inline uint64_t strata_shared_load(const void *address) {
    return __atomic_load_n((const uint64_t *)address, __ATOMIC_ACQUIRE);
}
static inline uint64_t strata_shared_increment(void *address) {
    return __atomic_add_fetch((uint64_t *)address, 1, __ATOMIC_ACQ_REL);
}
// Subtracts one unless the counter is 0 (a count of holders, which a holder that died never gave back); returns the
// new value.
static inline uint64_t strata_shared_decrement(void *address) {
    uint64_t value = __atomic_load_n((uint64_t *)address, __ATOMIC_ACQUIRE);
    while (value > 0 && !__atomic_compare_exchange_n((uint64_t *)address, &value, value - 1, 0, __ATOMIC_ACQ_REL,
                                                     __ATOMIC_ACQUIRE)) {
    }
    return value > 0 ? value - 1 : 0;
}

// CRC-32C with the processor's instruction (SSE 4.2 on x86-64, the CRC extension on ARMv8). Without one,
// `strata_crc32c_accelerated` returns 0 and `strata_crc32c_update` must not be called. The update neither
// inverts `crc` on the way in nor on the way out: it is the bare table step, eight bytes at a time.
int strata_crc32c_accelerated(void);
uint32_t strata_crc32c_update(uint32_t crc, const void *data, size_t length);

// Starts writing the dirty pages of a byte range of `fd` to disk without waiting (`sync_file_range` with
// SYNC_FILE_RANGE_WRITE on Linux; nothing elsewhere). Makes nothing durable. 0, or -1 with errno set.
int strata_start_writeback(int fd, int64_t offset, int64_t count);

// Asks the processor to start loading the cache line at `address` (a hint; never faults).
static inline void strata_prefetch(const void *address) { __builtin_prefetch(address); }

// Turns echo off on the terminal `fd` (saving its settings) and installs handlers for SIGINT, SIGQUIT, SIGTERM
// and SIGHUP that put the settings back before the signal takes its course. 0, or -1 with errno set (EBUSY when
// echo is already off). `strata_terminal_restore` puts the settings and the previous handlers back (0 or -1).
int strata_terminal_echo_off(int fd);
int strata_terminal_restore(void);

// Trapping SIGINT, SIGTERM and SIGHUP while a long command runs (see Interrupt.c). `strata_interrupt_trap`
// installs the handlers (0, or -1 with errno set); `strata_interrupt_caught` is the first signal caught since, or
// 0; `strata_interrupt_release` puts the previous handlers back. `strata_interrupt_set_restore` sets the bytes
// (at most 64) a second signal writes to `fd` before it ends the process (length 0: none).
// `strata_interrupt_raise` puts the default action back and raises the signal (the process ends by it).
int strata_interrupt_trap(void);
int strata_interrupt_caught(void);
int strata_interrupt_release(void);
int strata_interrupt_set_restore(int fd, const void *bytes, size_t length);
int strata_interrupt_raise(int signal_number);
// The width of the terminal `fd` in columns (0 when it does not say), or -1 with errno set.
int strata_terminal_columns(int fd);

// syncfs(2): flushes every file of the file system that holds `fd` in one call (Linux; Glibc declares it only
// under _GNU_SOURCE, so it is called by number). 0, or -1 with errno set (ENOSYS where there is no such call).
#if defined(__linux__)
#include <sys/syscall.h>
#include <unistd.h>
static inline int strata_syncfs(int fd) { return (int)syscall(SYS_syncfs, fd); }
#else
#include <errno.h>
static inline int strata_syncfs(int fd) {
    (void)fd;
    errno = ENOSYS;
    return -1;
}
#endif

// A new regular file without a name in the folder `directory` (open(2)'s O_TMPFILE, write-only, close-on-exec),
// and a name for such a file: `strata_link_descriptor` links the file open as `fd` as `name` in `directory`
// through /proc/self/fd (linkat's AT_EMPTY_PATH needs a privilege; this does not). Creating unnamed files does not
// hold the folder's lock, so several threads create files in one folder at once. Linux only: elsewhere, or on a
// file system without O_TMPFILE, -1 with errno EOPNOTSUPP (or what the kernel says: EISDIR, EINVAL, ENOENT
// without /proc), and the caller creates a named file instead.
#if defined(__linux__)
#include <fcntl.h>
#include <stdio.h>
static inline int strata_open_unnamed(int directory, mode_t mode) {
    return openat(directory, ".", __O_TMPFILE | O_DIRECTORY | O_WRONLY | O_CLOEXEC, mode);
}
static inline int strata_link_descriptor(int fd, int directory, const char *name) {
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    return linkat(AT_FDCWD, path, directory, name, AT_SYMLINK_FOLLOW);
}
#else
#include <errno.h>
static inline int strata_open_unnamed(int directory, mode_t mode) {
    (void)directory;
    (void)mode;
    errno = EOPNOTSUPP;
    return -1;
}
static inline int strata_link_descriptor(int fd, int directory, const char *name) {
    (void)fd;
    (void)directory;
    (void)name;
    errno = EOPNOTSUPP;
    return -1;
}
#endif

// libFuzzer's entry point, declared for the fuzz targets (defined only when they are built with
// -sanitize=fuzzer; nothing references it otherwise).
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
#endif
