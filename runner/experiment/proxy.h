/* [proxy NAME] sections (proxy.c). */
#pragma once

#include "experiment/where.h"

/* Each [proxy NAME] (its engine installed, for the
 * server's protocol, its settings for its kind) and each context's
 * proxy = NAME. */
int check_proxies(struct parser *p);
