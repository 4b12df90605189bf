/* Secrets kept out of everything slicebench writes: results are shared, and
 * often world-readable; passwords in them must not be.  A value is withheld
 * when its variable's name says it is secret (case-insensitive: PASS, PWD
 * but not PWD or OLDPWD themselves, SECRET, TOKEN, KEY, CRED, AUTH,
 * PRIVATE, COOKIE, SIGNATURE, or the words PAT, PW, PIN, OTP, PSK, SALT,
 * DSN), and credentials inside URLs (scheme://user:password@host), the
 * NAME=VALUE words of a connection string whose NAME is secret (libpq's
 * host=db password=x, primary_conninfo) and a secret parameter of a URL or
 * connection string (a JDBC URL's ?password=x or ;password=x, ODBC's
 * ;PWD=x) are withheld wherever they appear. */
#pragma once

#include <stdbool.h>

#include <jansson.h>

/* A whole value withheld, and a part of a text (no spaces, so that masking
 * twice changes nothing). */
#define SECRET_WITHHELD "(set, value withheld)"
#define SECRET_WITHHELD_PART "(withheld)"

/* Whether a variable of this name holds a secret. */
bool secret_name(const char *name);
/* The value of variable name as it may be shown: SECRET_WITHHELD, or value
 * masked as secret_mask_text() masks text.  NULL only when out of memory. */
char *secret_mask_value(const char *name, const char *value);
/* text with every NAME=VALUE word whose NAME is secret (Environment=
 * APP_PASSWORD=x) and every URL credential withheld.  NULL only when out
 * of memory. */
char *secret_mask_text(const char *text);
/* The one masking function of the writers: every string in j masked as
 * secret_mask_text() does, and the value under a key env.NAME withheld when
 * NAME is secret.  In place; 0 or -ENOMEM. */
int secret_mask_json(json_t *j);
