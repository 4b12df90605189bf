/* A context that mirrors an installed unit (mirror.c). */
#pragma once

#include "experiment/where.h"

/* unit = NAME.service, read over D-Bus. */
int mirror_units(struct parser *p);
