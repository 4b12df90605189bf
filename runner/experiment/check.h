/* The checks of a whole experiment once its file is read (check.c). */
#pragma once

#include "experiment/where.h"

/* The checks across keys a file's settings take (the server and
 * the workload, the client), for the command line's. */
int experiment_check_options(struct parser *p);

/* The whole experiment after its file, in two steps
 * around the mirror, which needs each context's kind and brings the
 * properties that the second step checks. */
int check_file(struct parser *p);
int check_settings(struct parser *p);
/* Each slice's parent index, parents being before their children. */
void slices_link(struct experiment *e);
int find_slice(const struct experiment *e, const char *name);
