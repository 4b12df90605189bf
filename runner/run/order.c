/* Balanced orders of a round's units (run/order.h). */
#include "run/order.h"
#include "common/rng.h"

/* The streams of the run's seed the labels and the squares' rows come
 * from, apart from any round's own. */
#define ORDER_LABELS_STREAM UINT64_C(0x5b1cebe7c0ffee)
#define ORDER_ROWS_STREAM UINT64_C(0x5b1cebe7d00000)

void run_order_balanced(uint64_t seed, unsigned round, size_t n, size_t *ret)
{
	size_t label[n + 1], row[n + 1], williams[n + 1];
	unsigned r = round ? round - 1 : 0, square = n ? r / (unsigned)n : 0;
	struct rng labels = rng_seeded(seed, ORDER_LABELS_STREAM), rows = rng_seeded(seed, ORDER_ROWS_STREAM + square);
	size_t lo = 1, hi = n - 1, at;
	int mirrored;

	if (n == 0)
		return;
	for (size_t i = 0; i < n; i++)
		label[i] = row[i] = i;
	rng_shuffle(&labels, label, n, sizeof(label[0]));
	rng_shuffle(&rows, row, n, sizeof(row[0]));
	/* Williams' first row: 0, 1, n-1, 2, n-2, ...; row k adds k. */
	williams[0] = 0;
	for (size_t j = 1; j < n; j++)
		williams[j] = j % 2 ? lo++ : hi--;
	at = row[r % n];
	mirrored = n % 2 && square % 2;
	for (size_t j = 0; j < n; j++)
		ret[j] = label[(williams[mirrored ? n - 1 - j : j] + at) % n];
}
