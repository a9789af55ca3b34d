/*
 * harness_persisted.c — libFuzzer harness for the codec of everything flakeid
 * persists (src/persisted/persisted.h), under AddressSanitizer and
 * UndefinedBehaviorSanitizer
 *
 * The first input byte picks the decoder: 0 mod 3 the state file, 1 a WAL
 * record (the second byte its info code), 2 the prepared file.  Whatever
 * decodes must encode in the current version to bytes that decode to the
 * same structure; any mismatch aborts, which libFuzzer reports as a crash.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/persisted/persisted.h"

static uint8_t out[1 << 20];

static bool
keep_first(void *arg, const PersistedHolding *holding)
{
	PersistedHolding *first = arg;

	if (first->full_xid == 0)
		*first = *holding;
	return true;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static PersistedState state,
				again;
	static PersistedRecord record,
				record_again;
	uint32_t	version;

	if (size < 2)
		return 0;
	switch (data[0] % 3)
	{
		case 0:
			if (persisted_state_decode(data + 1, size - 1, state.system_identifier, &state, &version) == PERSISTED_OK)
			{
				size_t		n;

				/* versions 1 and 2 name no cluster: the server writes them back under its own */
				if (state.system_identifier == 0)
					state.system_identifier = 1;
				n = persisted_state_encode(&state, out, sizeof(out));

				if (n == 0 || persisted_state_decode(out, n, state.system_identifier, &again, &version) != PERSISTED_OK ||
					memcmp(&state, &again, sizeof(state)) != 0)
					abort();
			}
			break;
		case 1:
			if (persisted_record_decode(data[1], data + 2, size - 2, &record) == PERSISTED_OK &&
				record.info != PERSISTED_RECORD_PREPARED)
			{
				size_t		n = persisted_issued_encode(&record.bounds, record.snowflake_epoch_ms, out, sizeof(out));

				if (n == 0 || persisted_record_decode(PERSISTED_RECORD_ISSUED, out, n, &record_again) != PERSISTED_OK ||
					memcmp(&record.bounds, &record_again.bounds, sizeof(record.bounds)) != 0)
					abort();
			}
			break;
		default:
			{
				PersistedHolding first = {0},
							saved;
				uint64_t	system;
				uint32_t	timeline;

				(void) persisted_prepared_decode(data + 1, size - 1, keep_first, &first, &saved, &system, &timeline,
												 &version);
			}
			break;
	}
	return 0;
}
