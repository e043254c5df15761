// Starting write-back of a range of a file: `sync_file_range` is a GNU extension the Swift Glibc module hides.
#define _GNU_SOURCE
#include <fcntl.h>

#include "CStrataSystem.h"

int strata_start_writeback(int fd, int64_t offset, int64_t count) {
#if defined(__linux__)
    return sync_file_range(fd, offset, count, SYNC_FILE_RANGE_WRITE);
#else
    (void)fd;
    (void)offset;
    (void)count;
    return 0;
#endif
}
