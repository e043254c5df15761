#ifndef STRATA_CSTRATASYSTEM_H
#define STRATA_CSTRATASYSTEM_H
// System headers the Swift overlays of Glibc and Darwin do not export.
#include <sys/types.h>
#include <sys/xattr.h>

#include <stddef.h>
#include <stdint.h>
// libFuzzer's entry point, declared for the fuzz targets (defined only when they are built with
// -sanitize=fuzzer; nothing references it otherwise).
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
#endif
