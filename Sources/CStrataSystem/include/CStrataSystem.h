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

// libFuzzer's entry point, declared for the fuzz targets (defined only when they are built with
// -sanitize=fuzzer; nothing references it otherwise).
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
#endif
