/* The trust gate over a whole experiment (gate.c). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "experiment/where.h"

/* The trust gate over the whole experiment, after every source of its
 * settings (the file, its snapshots and units, experiment.json, the
 * command line): each key row's allow-list, each property through
 * gate_prop() (slices/attr/gate.h), the policy the server's account and
 * [server] groups; trust_code: code not root's is taken (explain
 * --trust-results-code).  -EINVAL with p->msg at the first refusal. */
int experiment_gate(struct parser *p, bool trust_code);

/* The allow-lists of the key rows that can do anything. */
int allow_code_key(struct parser *p, const struct key_def *k, size_t i);
int allow_command_key(struct parser *p, const struct key_def *k, size_t i);
int allow_account_key(struct parser *p, const struct key_def *k, size_t i);
int allow_groups_key(struct parser *p, const struct key_def *k, size_t i);
int allow_input_key(struct parser *p, const struct key_def *k, size_t i);
