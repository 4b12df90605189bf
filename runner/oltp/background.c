/* The native oltp_read_only client run beside a step, as an oltp
 * neighbour's: the same driver as a step's (oltp_run_step), in a thread of
 * its own, measuring from its gate until its owner says stop. */
#include <pthread.h>

#include "oltp/oltp.h"
#include "common/util.h"

struct oltp_background {
	struct oltp_options o;
	unsigned threads;
	atomic_bool until;
	pthread_t thread;
	struct step_result result;
	int r; /* oltp_run_step()'s, read after the join */
};

static void *background_main(void *arg)
{
	struct oltp_background *b = arg;

	b->r = oltp_run_step(&b->o, b->threads, &b->result);
	return NULL;
}

int oltp_background_start(const struct oltp_options *o, unsigned threads, struct oltp_background **ret)
{
	struct oltp_background *b = calloc(1, sizeof(*b));
	int r;

	if (!b)
		return -ENOMEM;
	b->o = *o;
	b->o.until = &b->until;
	b->o.duration_ns = b->o.warmup_ns = 0;
	b->o.events = 0;
	b->o.progress = false;
	b->threads = threads;
	atomic_init(&b->until, false);
	r = -pthread_create(&b->thread, NULL, background_main, b);
	if (r < 0) {
		free(b);
		return r;
	}
	*ret = b;
	return 0;
}

int oltp_background_stop(struct oltp_background *b, struct step_result *ret)
{
	int r;

	if (!b)
		return 0;
	atomic_store(&b->until, true);
	pthread_join(b->thread, NULL);
	r = b->r;
	if (r >= 0)
		*ret = b->result;
	free(b);
	return r;
}
