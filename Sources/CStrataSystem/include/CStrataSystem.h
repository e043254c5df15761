#ifndef STRATA_CSTRATASYSTEM_H
#define STRATA_CSTRATASYSTEM_H
// System headers the Swift overlays of Glibc and Darwin do not export.
#include <sys/types.h>
#include <sys/xattr.h>
#endif
