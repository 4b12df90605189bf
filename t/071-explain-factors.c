/* explain's factors across the chain (runner/explain/factors.c) on
 * experiments and placements written here, no prerequisites: two
 * contexts through a proxy each, the proxy's written CPUQuota= and the
 * affinity its placement shows (proxy.affinity) are factors of the proxy
 * beside the server's Nice=, and its identity and engine are not, nor the
 * cpu cgroup its quota gives the server beside it; each
 * hybrid goes through a proxy of its own, shared where the proxy's
 * factors are taken alike; a proxy on one side only, or of another
 * engine, is said as what no hybrid can take; explain.json keeps which
 * factors are the proxy's.  t/087 measures the proxy's CPUQuota= for real. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "explain/factors.h"
#include "explain/record.h"
#include "tap.h"
#include "common/util.h"

/* Context i named name, of kind service, through proxy (-1: none), with
 * the setting NAME=VALUE when given. */
static void add_context(struct experiment *e, const char *name, int proxy, const char *prop, const char *value)
{
	struct context_spec *c = &e->contexts[e->n_contexts];

	snprintf(c->name, sizeof(c->name), "%s", name);
	c->kind = CONTEXT_SERVICE;
	if (prop && prop_parse(prop, value, &c->props[c->n_props++]) < 0)
		bail_out("cannot parse %s=%s", prop, value);
	e->context_proxy[e->n_contexts] = proxy;
	e->context_slice[e->n_contexts++] = -1;
}

static void add_proxy(struct experiment *e, const char *name, const char *engine, const char *prop, const char *value)
{
	struct context_spec *c = &e->proxies[e->n_proxies];

	snprintf(c->name, sizeof(c->name), "%s", name);
	c->kind = CONTEXT_SERVICE;
	if (prop && prop_parse(prop, value, &c->props[c->n_props++]) < 0)
		bail_out("cannot parse %s=%s", prop, value);
	if (!(e->proxy_engine[e->n_proxies++] = strdup(engine)))
		bail_out("out of memory");
}

/* A server's placement with its proxy's under proxy.*: what differs
 * between any two starts (cgroups, the unit) differs here too. */
static void make_placement(struct placement *p, const char *side, const char *proxy_affinity, const char *quota)
{
	char cg[64];

	*p = (struct placement){};
	snprintf(cg, sizeof(cg), "/system.slice/slicebench-%s.service", side);
	/* A proxy held to a quota gives the server beside it a cpu cgroup of
	 * its own (systemd turns the controller on in the whole slice). */
	if (placement_set(p, "cpu.accounting", quota && !strstr(quota, "max") ? "yes" : "no") < 0 ||
	    placement_set(p, "affinity", "0-1") < 0 || placement_set(p, "nice", "0") < 0 ||
	    placement_set(p, "cgroup.cpu", cg) < 0 || placement_set(p, "unit", cg + 14) < 0)
		bail_out("out of memory");
	if (!proxy_affinity)
		return;
	snprintf(cg, sizeof(cg), "/system.slice/slicebench-proxy-%s.service", side);
	if (placement_set(p, "proxy.affinity", proxy_affinity) < 0 || placement_set(p, "proxy.nice", "0") < 0 ||
	    placement_set(p, "proxy.cpu.max", quota) < 0 || placement_set(p, "proxy.cgroup.cpu", cg) < 0 ||
	    placement_set(p, "proxy.unit", cg + 14) < 0 || placement_set(p, "proxy.engine", "haproxy") < 0 ||
	    placement_set(p, "chain", "slicebench -> haproxy -> mariadb") < 0)
		bail_out("out of memory");
}

static int factor_labelled(const struct factor_set *fs, const char *label)
{
	for (size_t k = 0; k < fs->n; k++)
		if (streq(fs->f[k].label, label))
			return (int)k;
	return -1;
}

static const struct prop_value *setting_of(const struct context_spec *c, const char *name)
{
	for (size_t i = 0; i < c->n_props; i++)
		if (streq(c->props[i].def->name, name))
			return &c->props[i];
	return NULL;
}

static void check_record(const struct factor_set *fs)
{
	struct explain_record rec = { .threads = 1, .level = 0.95, .width = 0.2, .n_factors = fs->n }, back;
	char *why = NULL;
	int w, r;

	rec.stage[STAGE_SCREEN] = (struct stage_record){ .present = true, .factors = (1u << fs->n) - 1 };
	snprintf(rec.experiment, sizeof(rec.experiment), "chain");
	snprintf(rec.a, sizeof(rec.a), "a");
	snprintf(rec.b, sizeof(rec.b), "b");
	snprintf(rec.hybrids, sizeof(rec.hybrids), "service");
	snprintf(rec.proxy_hybrids, sizeof(rec.proxy_hybrids), "service");
	for (size_t k = 0; k < fs->n; k++) {
		snprintf(rec.labels[k], sizeof(rec.labels[k]), "%s", fs->f[k].label);
		rec.proxy[k] = fs->f[k].proxy;
	}
	w = explain_record_write(scratch_dir(), &rec);
	r = explain_record_read(scratch_dir(), &back, &why);
	ok(w >= 0 && r >= 0, "explain.json written (%d) and read back (%d: %s)", w, r, why ? why : "ok");
	ok(back.n_factors == fs->n && memcmp(back.proxy, rec.proxy, sizeof(rec.proxy)) == 0 &&
		   streq(back.proxy_hybrids, "service"),
	   "explain.json keeps which factors are the proxy's, and the proxy hybrids' kind");
	free(why);
}

/* A: Nice=5, its proxy CPUQuota=10% and pinned to CPU 0 (as a shell's
 * would inherit); B: free, its proxy free. */
static void check_chain(void)
{
	struct experiment e = {}, x = {};
	struct placement pa, pb;
	struct factor_set fs;
	int nice, quota, affinity;

	add_proxy(&e, "held", "haproxy", "CPUQuota", "10%");
	add_proxy(&e, "free", "haproxy", NULL, NULL);
	add_context(&e, "a", 0, "Nice", "5");
	add_context(&e, "b", 1, NULL, NULL);
	make_placement(&pa, "a", "0", "10000 100000");
	make_placement(&pb, "b", "0-1", "max 100000");
	is_int(factors_find(&(const struct factor_pair){ &e, 0, 1, &pa, &pb }, &fs), 0, "factors_find across the chain");
	nice = factor_labelled(&fs, "Nice=");
	quota = factor_labelled(&fs, "the proxy's CPUQuota=");
	affinity = factor_labelled(&fs, "the proxy's CPUAffinity=");
	is_int(fs.n, 3, "three factors: the server's Nice=, the proxy's CPUQuota= and affinity");
	ok(nice >= 0 && !fs.f[nice].proxy, "Nice= is the server's");
	ok(quota >= 0 && fs.f[quota].proxy && fs.f[quota].in_a && !fs.f[quota].in_b && !*fs.f[quota].detail,
	   "the proxy's CPUQuota=, as A's [proxy] writes it (its cpu.max its own, no factor of its own)");
	ok(affinity >= 0 && fs.f[affinity].proxy && streq(fs.f[affinity].detail, "affinity 0 against 0-1"),
	   "the proxy's affinity from the placements: %s", affinity >= 0 ? fs.f[affinity].detail : "none");
	is_str(fs.unmovable, "", "the proxy's unit, cgroup, engine and the chain are neither factors nor unexplained");
	ok(factor_labelled(&fs, "CPUAccounting=") < 0, "the server's cpu cgroup, the proxy's quota's doing, is no factor of its own");
	ok(fs.kind == CONTEXT_SERVICE && fs.proxy_kind == CONTEXT_SERVICE && fs.closure_is_a && !fs.chain_differs,
	   "hybrids and their proxies are services, and A is their closure");
	if (nice < 0 || quota < 0 || affinity < 0)
		bail_out("the factors are not there");

	is_int(factors_add_mix(&(const struct factor_pair){ &e, 0, 1, &pa, &pb }, &fs, 0, "b", &x), 0, "B, through its own proxy");
	is_int(factors_add_mix(&(const struct factor_pair){ &e, 0, 1, &pa, &pb }, &fs, 1u << nice, "nice", &x), 0, "Nice= from A");
	is_int(factors_add_mix(&(const struct factor_pair){ &e, 0, 1, &pa, &pb }, &fs, 1u << quota, "quota", &x), 0, "the proxy's CPUQuota= from A");
	is_int(factors_add_mix(&(const struct factor_pair){ &e, 0, 1, &pa, &pb }, &fs, 1u << quota | 1u << affinity, "proxy", &x), 0,
	       "the proxy's CPUQuota= and affinity from A");
	is_int(factors_add_mix(&(const struct factor_pair){ &e, 0, 1, &pa, &pb }, &fs, (1u << fs.n) - 1, "a", &x), 0, "the closure: A");
	is_int(x.n_proxies, 3, "three proxies: B's, and the two hybrids' (A's is the quota's)");
	ok(x.context_proxy[0] >= 0 && x.context_proxy[1] == x.context_proxy[0],
	   "a mix that takes none of the proxy's factors shares B's");
	ok(x.context_proxy[2] >= 0 && setting_of(&x.proxies[x.context_proxy[2]], "CPUQuota") &&
		   streq(setting_of(&x.proxies[x.context_proxy[2]], "CPUQuota")->text,
			 setting_of(&e.proxies[0], "CPUQuota")->text) &&
		   !setting_of(&x.proxies[x.context_proxy[2]], "CPUAffinity") && !setting_of(&x.contexts[2], "Nice"),
	   "the quota's mix: B's server, its proxy held as A's");
	ok(x.context_proxy[3] >= 0 && setting_of(&x.proxies[x.context_proxy[3]], "CPUAffinity") &&
		   streq(setting_of(&x.proxies[x.context_proxy[3]], "CPUAffinity")->text, "0"),
	   "the affinity taken from A's proxy's placement into the hybrid's proxy");
	ok(x.context_proxy[4] == x.context_proxy[2] && streq(x.proxies[x.context_proxy[4]].name, "quota") &&
		   streq(x.proxy_engine[x.context_proxy[4]], "haproxy") && setting_of(&x.contexts[4], "Nice"),
	   "A goes through its own proxy, the same as the quota's mix, which is shared");
	check_record(&fs);
	experiment_done(&x);

	/* Only A through a proxy: the chain differs, and that is said. */
	e.context_proxy[1] = -1;
	placement_done(&pb);
	make_placement(&pb, "b2", NULL, NULL);
	is_int(factors_find(&(const struct factor_pair){ &e, 0, 1, &pa, &pb }, &fs), 0, "factors_find with a proxy on one side");
	ok(fs.n == 2 && !fs.f[0].proxy && !fs.f[1].proxy && factor_labelled(&fs, "CPUAccounting=") >= 0 &&
		   fs.chain_differs && !fs.closure_is_a,
	   "the server's Nice= and cpu cgroup, which no proxy of B's explains; A is not the closure");
	ok(strstr(fs.unmovable, "the proxy (a through haproxy, b straight to the server)") &&
		   !strstr(fs.unmovable, "chain") && !strstr(fs.unmovable, "proxy.affinity"),
	   "the proxy on one side is said, its keys not listed one by one (%s)", fs.unmovable);
	placement_done(&pb);

	/* Another engine: said; the proxies' settings are still factors. */
	e.context_proxy[1] = 1;
	free(e.proxy_engine[1]);
	e.proxy_engine[1] = strdup("proxysql");
	make_placement(&pb, "b", "0-1", "max 100000");
	is_int(factors_find(&(const struct factor_pair){ &e, 0, 1, &pa, &pb }, &fs), 0, "factors_find with proxies of two engines");
	ok(fs.n == 3 && fs.chain_differs && !fs.closure_is_a && strstr(fs.unmovable, "the proxy's engine (haproxy against proxysql)"),
	   "the engine is said, the three factors stay (%s)", fs.unmovable);
	placement_done(&pa);
	placement_done(&pb);
	experiment_done(&e);
}

int main(void)
{
	check_chain();
	return done_testing();
}
