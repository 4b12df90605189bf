/* Which slicebench this is: debian/changelog's version and git describe's
 * commit at build time (the Makefile writes them into version.c), recorded
 * in every step a run writes and printed by --version and every report. */
#pragma once

extern const char slicebench_version[]; /* "0.1" */
extern const char slicebench_commit[];	/* "948fe19abc12", "v0.1-3-g948fe19abc12-dirty", or "unknown" */
