// Small pieces of C the Swift side cannot express: the processor's CRC-32C instruction behind a runtime check.
#include "CStrataSystem.h"

#include <string.h>

#if defined(__x86_64__)
#include <cpuid.h>

int strata_crc32c_accelerated(void) {
    unsigned int eax, ebx, ecx, edx;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return 0;
    return (ecx & bit_SSE4_2) != 0;
}

__attribute__((target("sse4.2"))) uint32_t strata_crc32c_update(uint32_t crc, const void *data, size_t length) {
    const unsigned char *bytes = data;
    uint64_t wide = crc;
    while (length >= 8) {
        uint64_t word;
        memcpy(&word, bytes, 8);
        wide = __builtin_ia32_crc32di(wide, word);
        bytes += 8;
        length -= 8;
    }
    uint32_t narrow = (uint32_t)wide;
    while (length > 0) {
        narrow = __builtin_ia32_crc32qi(narrow, *bytes++);
        length--;
    }
    return narrow;
}
#elif defined(__aarch64__) && defined(__ARM_FEATURE_CRC32)
#include <arm_acle.h>

int strata_crc32c_accelerated(void) { return 1; }

uint32_t strata_crc32c_update(uint32_t crc, const void *data, size_t length) {
    const unsigned char *bytes = data;
    while (length >= 8) {
        uint64_t word;
        memcpy(&word, bytes, 8);
        crc = __crc32cd(crc, word);
        bytes += 8;
        length -= 8;
    }
    while (length > 0) {
        crc = __crc32cb(crc, *bytes++);
        length--;
    }
    return crc;
}
#else
int strata_crc32c_accelerated(void) { return 0; }

uint32_t strata_crc32c_update(uint32_t crc, const void *data, size_t length) {
    (void)data;
    (void)length;
    return crc;
}
#endif
