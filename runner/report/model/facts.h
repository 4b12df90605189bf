/* The host facts a comparison across machines turns on (cpu.vendor,
 * kernel.release, ...), read from a document's host.json, shown for every
 * host, differing or not, before the other facts that differ. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#define HOST_FACTS_N 10
/* The key of row k. */
const char *host_fact_key(size_t k);
/* Every row's value of a document's host as an owned string (NULL:
 * absent) into ret[HOST_FACTS_N]. */
int host_fact_values(const json_t *host, char **ret);
/* host's facts flattened into out: {"cpu": {"vendor": "X"}} as
 * {"cpu.vendor": "X"}; arrays stay whole. */
int host_facts_flatten(const json_t *host, json_t *out);
/* Row k's value of flattened facts as an owned string (NULL: absent). */
int host_fact_value(const json_t *flat, size_t k, char **ret);
/* Is key one of the rows? */
bool host_fact_is(const char *key);
/* Do the n values (NULL: absent) differ? */
bool host_fact_differs(char *const *vals, size_t n);

/* The host facts compare weighs (vendor, model, L3 groups, kernel,
 * mitigations, systemd, cgroup mode) that differ between host.json a and
 * b, as "kernel.release (4.15 against 5.4), ..."; *ret NULL when none. */
int compare_host_differences(const json_t *a, const json_t *b, char **ret);
