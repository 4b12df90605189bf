/* perf stat over exactly a window the test chooses: started with its
 * events off, switched on and off through its control fifos, which it
 * acknowledges, its workload waiting on a third fifo so that it ends when
 * told, however long the window took on a loaded host. */
#pragma once

#include <stdbool.h>
#include <stdio.h>

struct test_perf {
	FILE *out;
	int ctl, ack, end;
};

/* Whether perf stat runs here at all. */
bool test_perf_usable(void);
/* perf stat -x, with args (its events and target), counting from now. */
void test_perf_open(struct test_perf *p, const char *args);
/* Stops counting now; then its count of each event named, NAN if none. */
void test_perf_close(struct test_perf *p, const char *const *events, double *ret, size_t n);
