/* Host facts: the properties of this machine that decide how a placement
 * behaves (CPU topology and L3 sharing, NUMA, cgroup mode and controllers,
 * scheduler knobs, the systemd version).  Collected once, without regard
 * to the output format, as one jansson tree; each format has one renderer.
 *
 * The tree is at most two levels deep ("cpu" -> "vendor"), except for the
 * name->text maps (cpu.vulnerabilities, numa.nodes, cgroup.v1_controllers,
 * cgroup.v1_named), so that `compare` can diff two of them key by key.
 * Every key is always present; a fact that cannot be read is null, never
 * an error.  Bump HOST_FACTS_FORMAT_VERSION when a key changes meaning. */
#pragma once

#include <stdio.h>
#include <jansson.h>

#define HOST_FACTS_FORMAT_VERSION 1

/* Collect the facts into a new JSON object.  Returns 0 and sets *ret, or
 * -ENOMEM; missing files and an unreachable systemd are recorded as null. */
int host_facts_collect(json_t **ret);

/* Aligned "key: value" lines, keys dotted ("cpu.vendor").  Returns 0, or
 * -EINVAL for a non-object, or -EIO if writing to f failed. */
int host_facts_print_text(json_t *facts, FILE *f);

/* The first "vendor_id" and "model name" lines of /proc/cpuinfo, each NULL
 * when absent (no /proc/cpuinfo: both).  -ENOMEM. */
int cpuinfo_read(char **ret_vendor, char **ret_model);
