#include "common/interrupt.h"

volatile sig_atomic_t interrupt_signal;

static void on_signal(int sig)
{
	/* A second signal during cleanup changes nothing: the first one decides
	 * the exit status, and cleanup runs to its end. */
	if (!interrupt_signal)
		interrupt_signal = sig;
}

void interrupt_catch(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}
