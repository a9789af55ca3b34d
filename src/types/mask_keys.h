/*
 * mask_keys.h — the keys of flakeid's masks (flakeid.mask_keys_file), as the
 * mask functions (mask_type.c) take them
 */
#ifndef FLAKEID_MASK_KEYS_H
#define FLAKEID_MASK_KEYS_H

#include "format/format.h"
#include "format/mask.h"

/* from _PG_init, preloaded or not: defines flakeid.mask_keys_file */
extern void flakeid_mask_init(void);

/*
 * The FF1 that masks IDs of format under purpose: the file's first key,
 * whose ID goes to *key_id.  Raises 55000 when no key is loaded.
 */
extern const Ff1 *flakeid_mask_cipher(const FlakeFormat *format, const char *purpose, size_t purpose_len,
									  int *key_id);

/*
 * The FF1 that unmasks a token of key_id for format under purpose, or NULL
 * when the file holds no such key.  Raises 55000 when no key is loaded.
 */
extern const Ff1 *flakeid_unmask_cipher(const FlakeFormat *format, const char *purpose, size_t purpose_len,
										int key_id);

#endif
