/* SHA-256 (FIPS 180-4) of a buffer, as the hex sha256sum prints: what a
 * results directory records of each file it names, so that a result says
 * exactly which bytes ran. */
#pragma once

#include <stddef.h>

#define SHA256_HEX_LEN 64

/* hex: SHA256_HEX_LEN characters and a NUL. */
void sha256_hex(const void *data, size_t len, char hex[SHA256_HEX_LEN + 1]);
