/* SIGINT, SIGTERM and SIGHUP: the handler only records the first signal.
 * Every layer that waits (the readiness wait, the datadir's creation, a
 * step, prepare) looks at the flag and ends what it is doing; the main flow
 * then stops what it started and exits with 128 + the signal. */
#pragma once

#include <signal.h>

extern volatile sig_atomic_t interrupt_signal; /* the first signal caught, 0 if none */

/* Installed before the first child is started, so that no signal finds
 * slicebench without its handlers.  No SA_RESTART: a blocking wait returns
 * EINTR and looks at the flag. */
void interrupt_catch(void);
