/*
 * runtime.c — the wiring of the arrival runtime: which part handles which
 * message, and what each part does in the monitor's rounds and at its
 * stop.  monitor.c runs the event loop and the lifecycle over these tables
 * and calls no part by name; the parts (exchange.c, channel.c, report.c,
 * history.c) call down into monitor.c and transport.h only.  So the
 * runtime reads top-down: transport (system) < monitor (loop, lifecycle) <
 * parts < this table.
 *
 * Order matters where it is kept here: parts run in table order, the
 * release hooks free the mailbox, the decisions, the report's records and
 * the call sites in that order (as before), and `detach` runs before the
 * monitor frees its duplicates (the pending views' receives are on dec).
 */
#include <stdlib.h>
#include <string.h>
#include "internal.h"

/* A ctl message: 4 doubles (epoch, value, kind, 0). */
static void exchange_message(int source, int tag, char *buf, int bytes) {
    double m[4] = {0, 0, 0, 0};
    memcpy(m, buf, (size_t)bytes < sizeof m ? (size_t)bytes : sizeof m);
    free(buf);
    papc_arr_on_ctl(source, tag, m);
}

static void decision_message(int source, int tag, char *buf, int bytes) {
    (void)tag;
    papc_arr_on_decision(source, buf, bytes);   /* takes buf */
}

static void channel_message(int source, int tag, char *buf, int bytes) {
    (void)tag;
    papc_arr_on_data(source, buf, bytes);   /* takes buf */
}

const papc_arr_route papc_arr_routes[] = {
    {PAPC_TR_CTL, TAG_EST, exchange_message},
    {PAPC_TR_CTL, TAG_NOTICE, exchange_message},
    {PAPC_TR_DATA, TAG_BG, channel_message},
    {PAPC_TR_DATA, TAG_DEC, decision_message},
};
const int papc_arr_nroutes =
    (int)(sizeof papc_arr_routes / sizeof *papc_arr_routes);

const papc_arr_part papc_arr_parts[] = {
    {.name = "channel", .round = papc_arr_run_handlers,
     .busy = papc_arr_jobs_open, .release = papc_arr_free_mailbox},
    {.name = "exchange", .nap = papc_arr_decider_nap,
     .detach = papc_arr_drop_pending_views,
     .release = papc_arr_free_decisions,
     .settled = papc_arr_decisions_settled},
    {.name = "report", .stop = papc_arr_report,
     .release = papc_arr_free_recs},
    {.name = "history", .release = papc_arr_free_sites},
};
const int papc_arr_nparts =
    (int)(sizeof papc_arr_parts / sizeof *papc_arr_parts);
