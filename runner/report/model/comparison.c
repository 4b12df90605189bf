/* compare's model (report/model/comparison.h): each document's report
 * model lined up by column label and thread count, and their host facts;
 * the verdicts are the judge's (report/judge/). */
#include <stdio.h>
#include <string.h>

#include "report/model/comparison.h"
#include "common/util.h"

void host_model_done(struct host_model *h)
{
	for (size_t i = 0; h->rows && i < h->nrows; i++) {
		free(h->rows[i].ratio);
		free(h->rows[i].differ);
	}
	free(h->rows);
	for (size_t i = 0; i < h->n_not_compared; i++)
		free(h->not_compared[i]);
	free(h->not_compared);
	*h = (struct host_model){};
}

/* Long because it flattens, merges and compares the host facts of every
 * document in one pass, freeing as it goes. */
/* One piece: a pass that frees as it goes does not split at a free. */
static int comparison_host(struct comparison *c, json_t *const *docs)
{
	const char *key, **all;
	size_t nall = 0, cap = 0;
	json_t *v;

	c->hosts = calloc(c->n, sizeof(*c->hosts));
	if (!c->hosts)
		return -ENOMEM;
	for (size_t i = 0; i < c->n; i++) {
		c->hosts[i] = json_object();
		if (!c->hosts[i] || host_facts_flatten(json_object_get(docs[i], "host"), c->hosts[i]) < 0)
			return -ENOMEM;
		cap += json_object_size(c->hosts[i]);
	}
	c->facts = calloc(HOST_FACTS_N * c->n, sizeof(*c->facts));
	if (!c->facts)
		return -ENOMEM;
	for (size_t k = 0; k < HOST_FACTS_N; k++)
		for (size_t d = 0; d < c->n; d++) {
			int r = host_fact_value(c->hosts[d], k, &c->facts[k * c->n + d]);

			if (r < 0)
				return r;
		}
	all = calloc(cap + 1, sizeof(*all));
	c->keys = calloc(cap + 1, sizeof(*c->keys));
	c->values = calloc(cap * c->n + 1, sizeof(*c->values));
	if (!all || !c->keys || !c->values) {
		free(all);
		return -ENOMEM;
	}
	for (size_t i = 0; i < c->n; i++)
		json_object_foreach(c->hosts[i], key, v)
			all[nall++] = key;
	qsort(all, nall, sizeof(*all), cmp_str);
	for (size_t i = 0; i < nall; i++) {
		char **vals = &c->values[c->nkeys * c->n];
		bool same = true;

		if ((i > 0 && streq(all[i], all[i - 1])) || host_fact_is(all[i]))
			continue;
		for (size_t d = 0; d < c->n; d++)
			if (value_dup(json_object_get(c->hosts[d], all[i]), &vals[d]) < 0) {
				for (size_t k = 0; k < d; k++)
					free(vals[k]);
				free(all);
				return -ENOMEM;
			}
		same = !host_fact_differs(vals, c->n);
		if (same) {
			for (size_t d = 0; d < c->n; d++) {
				free(vals[d]);
				vals[d] = NULL;
			}
			continue;
		}
		c->keys[c->nkeys++] = all[i];
	}
	free(all);
	return 0;
}

void comparison_done(struct comparison *c)
{
	for (size_t i = 0; i < c->n; i++) {
		model_done(&c->m[i]);
		if (c->label_buf)
			free(c->label_buf[i]);
	}
	for (size_t i = 0; i < c->nkeys * c->n; i++)
		free(c->values[i]);
	for (size_t i = 0; c->facts && i < HOST_FACTS_N * c->n; i++)
		free(c->facts[i]);
	free(c->facts);
	host_model_done(&c->inter);
	for (size_t i = 0; c->hosts && i < c->n; i++)
		json_decref(c->hosts[i]);
	free(c->hosts);
	free(c->m);
	free(c->labels);
	free(c->label_buf);
	free(c->cols);
	free(c->threads);
	free(c->keys);
	free(c->values);
}

const struct cell *comparison_cell(const struct comparison *c, size_t doc, size_t row, size_t col)
{
	const struct model *m = &c->m[doc];
	size_t r, k;

	for (r = 0; r < m->nrows && m->threads[r] != c->threads[row]; r++)
		;
	for (k = 0; k < m->ncols && !streq(m->cols[k].label, c->cols[col]); k++)
		;
	return r < m->nrows && k < m->ncols ? model_cell(m, r, k) : NULL;
}

int comparison_build(json_t *const *docs, const char *const *labels, size_t n, double level, struct comparison *c)
{
	size_t cap = 0;
	int r;

	*c = (struct comparison){};
	if (!docs || n == 0)
		return -EINVAL;
	c->m = calloc(n, sizeof(*c->m));
	c->labels = calloc(n, sizeof(*c->labels));
	c->label_buf = calloc(n, sizeof(*c->label_buf));
	if (!c->m || !c->labels || !c->label_buf)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		r = model_build(docs[i], level, &c->m[i]);
		if (r < 0)
			return r;
		c->n++;
		if (labels && labels[i])
			c->labels[i] = labels[i];
		else if (xasprintf(&c->label_buf[i], "%zu", i + 1) < 0)
			return -ENOMEM;
		else
			c->labels[i] = c->label_buf[i];
		cap += c->m[i].ncols + c->m[i].nrows;
	}
	c->cols = calloc(cap + 1, sizeof(*c->cols));
	c->threads = calloc(cap + 1, sizeof(*c->threads));
	if (!c->cols || !c->threads)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		for (size_t k = 0; k < c->m[i].ncols; k++) {
			size_t j;

			for (j = 0; j < c->ncols && !streq(c->cols[j], c->m[i].cols[k].label); j++)
				;
			if (j == c->ncols)
				c->cols[c->ncols++] = c->m[i].cols[k].label;
		}
		for (size_t k = 0; k < c->m[i].nrows; k++)
			c->threads[c->nrows++] = c->m[i].threads[k];
	}
	qsort(c->threads, c->nrows, sizeof(*c->threads), cmp_ll);
	cap = c->nrows;
	c->nrows = 0;
	for (size_t i = 0; i < cap; i++)
		if (c->nrows == 0 || c->threads[c->nrows - 1] != c->threads[i])
			c->threads[c->nrows++] = c->threads[i];
	return comparison_host(c, docs);
}
