/*
 * kuid.h — the Erlang uid library's k-ordered ids (docs/spec/kuid.md)
 *
 *   kuid    (local, 64 bits):  Mega 20 | Sec 20 | Tick 10 | Seq 14
 *   kuid96  (global, 96 bits): Mega 20 | SecHi 12 | Node 32 | SecLo 8 | Tick 10 | Seq 14
 *
 * with the interval I fixed at 8 (README, "Reference").  Time is the mixed-radix
 * (megaseconds, seconds, 1.024 ms tick restarting every second) of spec §1.
 * Pure C, no PostgreSQL headers.
 */
#ifndef FLAKEID_FORMAT_KUID_H
#define FLAKEID_FORMAT_KUID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "codec.h"

#define KUID_SIZE			8
#define KUID96_SIZE			12
#define KUID_TEXT_LEN		11		/* 2 trailing padding bits, must be zero */
#define KUID96_TEXT_LEN		16
#define KUID_INTERVAL		8		/* I: kuid96 windows of 2^8 = 256 seconds */
#define KUID_MEGA_LIMIT		(UINT32_C(1) << 20)	/* times are before 2^20 megaseconds */
#define KUID_FIELD_MAX		((UINT32_C(1) << 20) - 1)	/* Mega and Sec bit patterns */
#define KUID_TICK_US		1024
#define KUID_TICKS_PER_SEC	977		/* ticks 0..976; 977..1023 never come from a clock */
#define KUID_TICK_MAX		1023	/* largest bit pattern */
#define KUID_SEQ_MAX		16383

extern const FlakeTextLayout kuid_text;
extern const FlakeTextLayout kuid96_text;

typedef struct KuidFields
{
	uint32_t	mega;			/* < 2^20 */
	uint32_t	sec;			/* < 2^20; a clock gives < 10^6 */
	unsigned	tick;			/* < 2^10; a clock gives < 977 */
	unsigned	seq;			/* < 2^14 */
} KuidFields;

extern void kuid_pack(const KuidFields *fields, uint8_t *out);
extern void kuid_unpack(const uint8_t *in, KuidFields *fields);
extern void kuid96_pack(const KuidFields *fields, uint32_t node, uint8_t *out);
extern void kuid96_unpack(const uint8_t *in, KuidFields *fields, uint32_t *node);

/*
 * The same for the library's other neighbourhood intervals (spec §3,
 * encode/2 and decode/2): I in KUID_INTERVAL_MIN..KUID_INTERVAL_MAX, which
 * the caller checks.  Lossless both ways: every 12-byte value unpacks.
 */
#define KUID_INTERVAL_MIN	5
#define KUID_INTERVAL_MAX	10
extern void kuid96_pack_interval(const KuidFields *fields, uint32_t node, int interval, uint8_t *out);
extern void kuid96_unpack_interval(const uint8_t *in, int interval, KuidFields *fields, uint32_t *node);

/* Floors a Unix-epoch microsecond instant to its tick (spec §1); false outside [1970, 2^20 Ms). */
extern bool kuid_fields_from_unix_us(int64_t unix_us, KuidFields *fields);
/* (Mega·10^6 + Sec)·10^6 + Tick·1024, for any bit pattern (README, "Using kuid and kuid96"). */
extern int64_t kuid_unix_us_from_fields(const KuidFields *fields);

/*
 * The generator counts ticks linearly: unit = seconds·977 + tick, so that
 * the counter word (counter.h) can compare and advance them.
 */
extern uint64_t kuid_unit_from_fields(const KuidFields *fields);
extern void kuid_fields_from_unit(uint64_t unit, KuidFields *fields);

/*
 * The bound of *_advance_past (README, "Moving to flakeid and between
 * servers"): the greatest generator unit t such that every ID the generator
 * issues in a unit after t sorts after the ID of `fields` (any sequence),
 * for any bit pattern.  kuid96 orders by its 256-second window before the
 * node: an ID of a lower node is passed at the start of its window, one of
 * a higher node only after its window's end.
 */
extern uint64_t kuid_unit_bound(const KuidFields *fields);
extern uint64_t kuid96_unit_bound(const KuidFields *fields, uint32_t id_node, uint32_t own_node);

/* spec §5: Erlang's phash2 of the atom named by a UTF-8 string (< 2^28). */
extern uint32_t kuid_node_fingerprint(const char *name, size_t len);

/*
 * Whether a NUL-terminated UTF-8 string is an Erlang node name with the
 * syntax OTP's net_kernel gives a node (any other name is one no uid node
 * can have, so its kuid96 IDs would claim a node that does not exist):
 * "name@host", the name of ASCII letters, digits, '_' and '-', the host
 * non-empty, of the characters U+0021 to U+00FF (written in UTF-8, as the
 * fingerprint reads Latin-1 characters).  "nonode@nohost" passes: it is
 * the name of every VM not distributed.
 */
extern bool kuid_node_name_valid(const char *name);

#endif
