/* A context that replays a capture (replay.c). */
#pragma once

#include "experiment/where.h"

/* from = SNAPSHOT.json, before the checks (a context of it may
 * leave its kind to the snapshot). */
int replay_snapshots(struct parser *p);
