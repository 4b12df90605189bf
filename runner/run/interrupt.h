/* SIGINT, SIGTERM and SIGHUP while slicebench owns a server: the handler
 * only sets flags (the running step ends as "interrupted"), and the main
 * flow stops what it started and exits with 128 + the signal. */
#pragma once

#include <signal.h>

extern volatile sig_atomic_t interrupt_signal; /* the first signal caught, 0 if none */

void interrupt_catch(void);
