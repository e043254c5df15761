#ifndef STRATA_CCRYPTO_SHIM_H
#define STRATA_CCRYPTO_SHIM_H
#include <openssl/evp.h>
#include <openssl/hmac.h>
#endif
