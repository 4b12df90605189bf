/* The checks of [proxy NAME] and of each context's proxy = NAME: the
 * engine installed and of the server's protocol, the proxy's context
 * taking its settings, and no User=, since the proxy runs as the
 * server's user (its socket directory is that user's). */
#include "experiment/binary.h"
#include "experiment/proxy.h"
#include "slices/server/proxy.h"

/* "haproxy or proxysql": the engines that carry protocol. */
static const char *engines_of(const char *protocol, char *buf, size_t len)
{
	struct word words[8] = {};
	size_t n = 0;

	for (size_t i = 0; proxy_engines[i] && n < ELEMENTSOF(words) - 1; i++)
		if (streq(proxy_engines[i]->protocol, protocol))
			words[n++] = (struct word){ proxy_engines[i]->name, (int)i };
	return word_join(words, ", ", " or ", buf, len);
}

/* The engine: given, installed, carrying what [server] speaks. */
static int check_proxy_engine(struct parser *p, size_t i)
{
	struct experiment *e = p->e;
	const unsigned *line = p->key_line[i];
	const struct proxy_engine *pe = proxy_engine_named(e->proxy_engine[i]);
	const struct server_engine *server = server_engine_named(e->engine);
	_cleanup_free_ char *why = NULL;
	char list[64];
	int r;

	if (!pe)
		return fail_at(p, p->header_line[SECTION_PROXY][i], "engine", "[proxy %s] needs engine = %s",
			       e->proxies[i].name, word_list(proxy_engine_words, list, sizeof(list)));
	if (server && !streq(pe->protocol, server->protocol))
		return fail_at(p, line[KEY_PROXY_ENGINE], "engine", "%s carries %s, and [server] engine = %s speaks %s (%s carries it)",
			       pe->name, pe->protocol, server->name, server->protocol,
			       engines_of(server->protocol, list, sizeof(list)));
	/* sysbench would take the password on its command line. */
	if (pe->password && e->oltp.driver == OLTP_DRIVER_SYSBENCH)
		return fail_at(p, line_of(p, KEY_DRIVER) ?: line[KEY_PROXY_ENGINE], line_of(p, KEY_DRIVER) ? "driver" : "engine",
			       "%s's users log in with a password, which sysbench would take on its command line: "
			       "through %s, use slicebench's own driver", pe->name, pe->name);
	r = proxy_installed(pe, e->proxy_binary[i], &why);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return fail_at(p, line[KEY_PROXY_BINARY] ?: line[KEY_PROXY_ENGINE], line[KEY_PROXY_BINARY] ? "binary" : "engine",
			       "%s", why);
	/* A binary the file gives passes the gate (experiment_gate()). */
	return e->proxy_binary[i] ? 0 : check_code_file(p, pe->as_server.binary, line[KEY_PROXY_ENGINE], "engine");
}

/* The proxy's context: a kind, a session only where the kind takes one,
 * settings that kind can apply here, and the server's user. */
static int check_proxy_context(struct parser *p, size_t i)
{
	struct context_spec *c = &p->e->proxies[i];
	const unsigned header = p->header_line[SECTION_PROXY][i];
	const struct prop_value *bad;
	const char *why;

	if (!p->key_line[i][KEY_PROXY_KIND])
		return fail_at(p, header, "kind", "[proxy %s] needs kind = %s", c->name, context_kind_list(false));
	if (p->key_line[i][KEY_PROXY_SESSION] && !context_ops_for(c->kind)->session)
		return fail_at(p, p->key_line[i][KEY_PROXY_SESSION], "session", "only %s contexts choose a session",
			       context_kind_list(true));
	for (size_t k = 0; k < c->n_props; k++)
		if (streq(c->props[k].def->name, "User"))
			return fail_at(p, p->proxy_prop_line[i][k], "User",
				       "a proxy runs as the server's user ([server] user), whose socket directory it "
				       "listens in and whom the server knows by the socket's peer");
	if (context_validate(c, p->mode, &bad, &why) < 0)
		return fail_at(p, bad ? p->proxy_prop_line[i][bad - c->props] : header, bad ? bad->def->name : "kind",
			       "%s in [proxy %s] (%s)", why, c->name, context_kind_to_string(c->kind));
	return 0;
}

/* Each context's proxy = NAME, a [proxy NAME] of the file. */
static int link_contexts(struct parser *p)
{
	struct experiment *e = p->e;

	for (size_t i = 0; i < e->n_contexts; i++) {
		e->context_proxy[i] = -1;
		if (!*p->ctx_proxy[i])
			continue;
		for (size_t k = 0; k < e->n_proxies; k++)
			if (streq(e->proxies[k].name, p->ctx_proxy[i]))
				e->context_proxy[i] = (int)k;
		if (e->context_proxy[i] < 0)
			return fail_at(p, p->key_line[i][KEY_CONTEXT_PROXY], "proxy",
				       "no [proxy %s] in this file (proxy = names a proxy the experiment defines)",
				       p->ctx_proxy[i]);
	}
	return 0;
}

int check_proxies(struct parser *p)
{
	for (size_t i = 0; i < p->e->n_proxies; i++)
		if (check_proxy_engine(p, i) < 0 || check_proxy_context(p, i) < 0)
			return -EINVAL;
	return link_contexts(p);
}
