/*
 * mask_type.c — <type>_mask and <type>_unmask: keyed, reversible public
 * tokens of IDs (format/mask.h; docs/REFERENCE.md, "Masks")
 *
 * STABLE, not IMMUTABLE: the result depends on the key file, which a reload
 * changes between statements (mask_keys.c), so a plan must not fold a call
 * into a constant or an index keep one; within a statement the keys stay,
 * so `WHERE id = sno_unmask($1, 'orders')` is evaluated once and probes the
 * primary key.  PARALLEL RESTRICTED: a parallel worker would read the file
 * afresh, and could see a newer file than its leader before a reload.
 */
#include "postgres.h"

#include "fmgr.h"
#if PG_VERSION_NUM >= 160000
#include "varatt.h"			/* (VARDATA_ANY: in postgres.h before 16) */
#endif
#include "mb/pg_wchar.h"
#include "utils/builtins.h"

#include "format/bytes.h"
#include "types/glue.h"
#include "types/mask_keys.h"

/* a token of id (format->width bytes) under purpose, as text */
static text *
mask_id(const FlakeFormat *format, const uint8 *id, const text *purpose)
{
	int			key_id;
	const Ff1  *ff1 = flakeid_mask_cipher(format, VARDATA_ANY(purpose), VARSIZE_ANY_EXHDR(purpose), &key_id);
	char		token[MASK_MAX_TOKEN_LEN];

	mask_encode(ff1, key_id, id, token);
	return cstring_to_text_with_len(token, mask_token_length(format->width));
}

/* (at most this many bytes of a bad token are quoted: any caller could fill the log with one) */
#define QUOTED_TOKEN_MAX 64

pg_noreturn static void
bad_token(const FlakeFormat *format, const text *token, const char *why)
{
	int			len = VARSIZE_ANY_EXHDR(token);
	int			quoted = pg_mbcliplen(VARDATA_ANY(token), len, Min(len, QUOTED_TOKEN_MAX));

	ereport(ERROR,
			(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
			 errmsg("invalid mask token for type %s: \"%.*s%s\"", format->name, quoted, VARDATA_ANY(token),
					quoted < len ? "..." : ""),
			 errdetail("%s", why)));
}

/* the ID (format->width bytes, to id) of a token under purpose; 22P02 for a token that is not one */
static void
unmask_token(const FlakeFormat *format, const text *token, const text *purpose, uint8 *id)
{
	uint8		enciphered[MASK_MAX_WIDTH];
	char		why[320];
	int			key_id;
	const Ff1  *ff1;

	if (!mask_token_read(format->name, VARDATA_ANY(token), VARSIZE_ANY_EXHDR(token), format->width,
						 &key_id, enciphered, why, sizeof(why)))
		bad_token(format, token, why);
	ff1 = flakeid_unmask_cipher(format, VARDATA_ANY(purpose), VARSIZE_ANY_EXHDR(purpose), key_id);
	if (ff1 == NULL)
	{
		snprintf(why, sizeof(why), "The token names key %d, which flakeid.mask_keys_file does not hold.", key_id);
		bad_token(format, token, why);
	}
	mask_decode(ff1, enciphered, id);
}

#define FLAKEID_MASK_FUNCTIONS(prefix, format) \
PG_FUNCTION_INFO_V1(prefix##_mask); \
Datum \
prefix##_mask(PG_FUNCTION_ARGS) \
{ \
	PG_RETURN_TEXT_P(mask_id((format), (const uint8 *) PG_GETARG_POINTER(0), PG_GETARG_TEXT_PP(1))); \
} \
PG_FUNCTION_INFO_V1(prefix##_unmask); \
Datum \
prefix##_unmask(PG_FUNCTION_ARGS) \
{ \
	uint8		id_[MASK_MAX_WIDTH]; \
	\
	unmask_token((format), PG_GETARG_TEXT_PP(0), PG_GETARG_TEXT_PP(1), id_); \
	return fixed_datum((format), id_); \
}

FLAKEID_MASK_FUNCTIONS(sno, &sno_format)
FLAKEID_MASK_FUNCTIONS(flax, &flax_format)
FLAKEID_MASK_FUNCTIONS(siq, &siq_format)
FLAKEID_MASK_FUNCTIONS(kuid, &kuid_format)
FLAKEID_MASK_FUNCTIONS(kuid96, &kuid96_format)

/* snowflakes are bigint: the mask takes its 8 bytes, two's complement, big-endian */
PG_FUNCTION_INFO_V1(snowflake_mask);
Datum
snowflake_mask(PG_FUNCTION_ARGS)
{
	uint8		id[8];

	be_put(id, 8, (uint64) PG_GETARG_INT64(0));
	PG_RETURN_TEXT_P(mask_id(&snowflake_format, id, PG_GETARG_TEXT_PP(1)));
}

PG_FUNCTION_INFO_V1(snowflake_unmask);
Datum
snowflake_unmask(PG_FUNCTION_ARGS)
{
	uint8		id[8];

	unmask_token(&snowflake_format, PG_GETARG_TEXT_PP(0), PG_GETARG_TEXT_PP(1), id);
	PG_RETURN_INT64((int64) be_get(id, 8));
}
