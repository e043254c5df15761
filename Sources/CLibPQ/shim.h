#ifndef STRATA_CLIBPQ_SHIM_H
#define STRATA_CLIBPQ_SHIM_H
#include <libpq-fe.h>

/// The diagnostic field codes are character-literal macros, which Swift does not import.
static inline int strata_pg_diag_sqlstate(void) { return PG_DIAG_SQLSTATE; }
static inline int strata_pg_diag_message(void) { return PG_DIAG_MESSAGE_PRIMARY; }
static inline int strata_pg_diag_detail(void) { return PG_DIAG_MESSAGE_DETAIL; }
static inline int strata_pg_diag_constraint(void) { return PG_DIAG_CONSTRAINT_NAME; }

/// A notice receiver that drops notices ("relation already exists, skipping"), which libpq would print.
static inline void strata_pg_ignore_notice(void *arg, const PGresult *result) { (void)arg; (void)result; }
static inline void strata_pg_silence(PGconn *connection) {
    PQsetNoticeReceiver(connection, strata_pg_ignore_notice, 0);
}
#endif
