/* A binary an experiment names (the server's, a proxy's): one that root
 * alone could have put there, since it runs as the server. */
#include "experiment/binary.h"
#include "common/trust.h"

int check_code_file(struct parser *p, const char *binary, unsigned line, const char *key)
{
	_cleanup_free_ char *found = NULL, *why = NULL;
	int r;

	if (!executable_in_path(binary, &found))
		return fail_at(p, line, key, "%s is not an executable here", binary);
	r = trust_code_file(found, &why);
	if (r == -ENOMEM)
		return r;
	return r < 0 ? fail_at(p, line, key, "%s: refused, since what it names runs as the server (%s)", binary,
			       why ? why : strerror(-r))
		     : 0;
}
