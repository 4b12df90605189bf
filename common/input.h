/* Files read from a directory someone else may have made (a results
 * directory, an explain directory, a snapshot): only a regular file, never
 * through a symbolic link (which would show root's files), never blocking
 * (a FIFO), never more than a bound (a 1 GB step file), and a JSON error
 * that quotes none of the file's content. */
#pragma once

#include <stddef.h>

#include <jansson.h>

/* The bound of one JSON file of a results directory: a step of an hour
 * at 1 s intervals is some 60 kB. */
#define INPUT_JSON_MAX (8u << 20)

/* The file at path parsed as JSON, at most max bytes; NULL with why in
 * *ret_why ("PATH: a symbolic link", "PATH:LINE: what jansson found
 * wrong") and errno set (ENOENT: there is none, so that a caller may take
 * a missing file as none). */
json_t *input_load_json(const char *path, size_t max, char **ret_why);
