#ifndef STRATA_CSODIUM_SHIM_H
#define STRATA_CSODIUM_SHIM_H
#include <sodium.h>
#endif
