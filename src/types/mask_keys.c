/*
 * mask_keys.c — flakeid.mask_keys_file: reading the keys, and the ciphers of
 * each (type, purpose) that the mask functions ask for
 *
 * Each backend reads the file itself, when it first masks or unmasks after
 * starting or after a reload (the setting's assign hook runs at every
 * SIGHUP that the backend processes, between statements: keys never change
 * within a statement, which is what makes the functions STABLE).  A file
 * that is not a regular file, that the group or others may access, or that
 * does not parse is refused as a whole, with the reason in the server log,
 * as PostgreSQL refuses an SSL key file: the functions then have no key.
 * Keys live in this backend's memory only, expanded by OpenSSL; they are
 * wiped when the file is read again.  No message quotes a key or a line of
 * the file.
 *
 * This is not a generator setting (base/settings.c): masks need no
 * shared state, so the setting exists whether flakeid is preloaded or not.
 */
#include "postgres.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/timestamp.h"
#include "utils/tuplestore.h"

#include "types/glue.h"
#include "types/mask_keys.h"

/* a key file is a few lines; anything larger is refused unread */
#define MASK_KEYS_FILE_MAX	65536
/* purposes up to this length are remembered with their cipher */
#define CACHED_PURPOSE_MAX	128

static char *mask_keys_file = NULL;
static bool keys_stale = true;
static TimestampTz keys_reload = 0;	/* PgReloadTime when the keys were read */
static uint32 keys_generation = 0;
static int	key_count = 0;
static int	key_ids[MASK_MAX_KEYS];
static Ff1Key keys[MASK_MAX_KEYS];
static char refusal[320];		/* why there is no key: for the log and superusers */
/* the same without the file's path, for every other role: what an application can pass on (1.4's audit) */
static char public_refusal[320];

/* the last cipher each type masked with, and unmasked with */
typedef struct CachedCipher
{
	uint32		generation;		/* 0: empty */
	int			key_index;
	size_t		purpose_len;
	char		purpose[CACHED_PURPOSE_MAX];
	Ff1			ff1;
} CachedCipher;

static CachedCipher cache[FLAKE_FORMAT_COUNT][2];

/*
 * keys_stale: every SIGHUP that sets the setting, changed or not: the file
 * may have changed.  A value given on the server's command line (-c)
 * outranks the configuration files, and a reload then sets nothing: its
 * keys stayed those of the session's start (an audit rotated a key away
 * and open sessions went on using it).  So a reload seen otherwise, by
 * PgReloadTime, which each process sets as it applies a reload (between
 * statements too), makes them stale as well.
 */
#define keys_need_reading() (keys_stale || keys_reload != PgReloadTime)


static void
mask_keys_file_assign(const char *newval, void *extra)
{
	(void) newval;
	(void) extra;
	keys_stale = true;
}

void
flakeid_mask_init(void)
{
	DefineCustomStringVariable("flakeid.mask_keys_file",
							   "File of the keys of the *_mask functions, relative to the data directory unless absolute.",
							   "Lines \"KEY_ID HEX_KEY\" (0-1023, 64 hex digits); the first key masks, every key unmasks. "
							   "Refused when the group or others may access it.",
							   &mask_keys_file, "", PGC_SIGHUP, GUC_SUPERUSER_ONLY,
							   NULL, mask_keys_file_assign, NULL);
}

static void
forget_keys(void)
{
	for (int i = 0; i < key_count; i++)
		ff1_key_free(&keys[i]);
	key_count = 0;
	keys_generation++;
	if (keys_generation == 0)
		keys_generation = 1;
}

static void
refuse(const char *path, const char *why)
{
	snprintf(refusal, sizeof(refusal), "mask key file \"%s\" refused: %s", path, why);
	snprintf(public_refusal, sizeof(public_refusal), "The key file was refused when the server last read it: %s (the server log names the file).", why);
	ereport(LOG,
			(errmsg("mask key file \"%s\" refused: %s", path, why),
			 errhint("The mask functions have no key until the file is corrected and the configuration reloaded.")));
}

/*
 * The file's text into buffer (NUL-terminated), or false having refused it.
 * The descriptor's own fstat judges the permissions: what is checked is
 * what is read.  O_NONBLOCK: a FIFO in the file's place must not hang the
 * backend in open() before fstat can refuse it.
 */
static bool
read_keys_file(const char *path, char *buffer, size_t *len)
{
	struct stat st;
	int			fd = open(path, O_RDONLY | PG_BINARY | O_CLOEXEC | O_NONBLOCK, 0);
	ssize_t		got = 0;
	char		why[200];

	if (fd < 0)
	{
		snprintf(why, sizeof(why), "could not open it: %s", strerror(errno));
		refuse(path, why);
		return false;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
	{
		close(fd);
		refuse(path, "it is not a regular file");
		return false;
	}
	if (st.st_mode & (S_IRWXG | S_IRWXO))
	{
		close(fd);
		snprintf(why, sizeof(why), "it has group or world access (mode %04o); "
				 "it must be u=rw (0600) or less, as an SSL key", (unsigned) (st.st_mode & 07777));
		refuse(path, why);
		return false;
	}
	/* to the end of the file, or one byte past the limit */
	while (got <= MASK_KEYS_FILE_MAX)
	{
		ssize_t		n = read(fd, buffer + got, MASK_KEYS_FILE_MAX + 1 - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
		{
			if (n < 0)
				got = -1;
			break;
		}
		got += n;
	}
	close(fd);
	if (got < 0 || got > MASK_KEYS_FILE_MAX)
	{
		refuse(path, got < 0 ? "it could not be read" : "it is larger than 64 kB");
		return false;
	}
	buffer[got] = '\0';
	*len = (size_t) got;
	return true;
}

static void
load_keys(void)
{
	char	   *path;
	char	   *buffer;
	size_t		len = 0;
	MaskKeyLine lines[MASK_MAX_KEYS];
	char		why[200];
	int			count;
	TimestampTz reload_seen = PgReloadTime;

	/* (stale until the end: an error below, out of memory, leaves the next call to read again) */
	keys_stale = true;
	forget_keys();
	refusal[0] = '\0';
	snprintf(public_refusal, sizeof(public_refusal), "The key file could not be used (the server log says why).");
	if (mask_keys_file == NULL || mask_keys_file[0] == '\0')
	{
		snprintf(refusal, sizeof(refusal), "flakeid.mask_keys_file is not set");
		snprintf(public_refusal, sizeof(public_refusal), "The server has no key file: flakeid.mask_keys_file is not set.");
		keys_stale = false;
		keys_reload = reload_seen;
		return;
	}
	path = is_absolute_path(mask_keys_file) ? pstrdup(mask_keys_file) : psprintf("%s/%s", DataDir, mask_keys_file);
	buffer = palloc(MASK_KEYS_FILE_MAX + 1);
	if (read_keys_file(path, buffer, &len))
	{
		count = mask_keys_parse(buffer, len, lines, MASK_MAX_KEYS, why, sizeof(why));
		if (count < 0)
			refuse(path, why);
		else if (count == 0)
			refuse(path, "it holds no key");
		for (int i = 0; i < count; i++)
		{
			if (!ff1_key_init(&keys[key_count], lines[i].key, MASK_KEY_BYTES))
			{
				forget_keys();
				refuse(path, "OpenSSL could not set up one of its keys");
				break;
			}
			key_ids[key_count++] = lines[i].id;
		}
		if (key_count > 0)
			ereport(DEBUG1,
					(errmsg_internal("mask key file \"%s\": %d keys, key %d masks", path, key_count, key_ids[0])));
	}
	explicit_bzero(lines, sizeof(lines));
	explicit_bzero(buffer, MASK_KEYS_FILE_MAX + 1);
	pfree(buffer);
	pfree(path);
	/* only now: an error above (out of memory) leaves the next call to read again */
	keys_stale = false;
	keys_reload = reload_seen;
}

pg_noreturn static void
no_key(void)
{
	ereport(ERROR,
			(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			 errmsg("flakeid has no mask key"),
			 superuser() ? errdetail("%s.", refusal) : errdetail("%s", public_refusal),
			 errhint("Set flakeid.mask_keys_file to a file of lines \"KEY_ID HEX_KEY\" that only the server's user can read, "
					 "and reload the configuration.")));
}

/* the cached or a new cipher of (format, key index, purpose) in entry */
static const Ff1 *
cipher(CachedCipher *entry, const FlakeFormat *format, int key_index, const char *purpose, size_t purpose_len)
{
	uint8		tweak[MASK_TWEAK_BYTES];

	if (entry->generation == keys_generation && entry->key_index == key_index &&
		entry->purpose_len == purpose_len && memcmp(entry->purpose, purpose, purpose_len) == 0)
		return &entry->ff1;
	entry->generation = 0;
	if (!mask_tweak(format->name, purpose, purpose_len, tweak) ||
		!mask_prepare(&entry->ff1, &keys[key_index], tweak, format->width))
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("could not set up the mask cipher of type %s", format->name)));
	if (purpose_len <= CACHED_PURPOSE_MAX)
	{
		memcpy(entry->purpose, purpose, purpose_len);
		entry->purpose_len = purpose_len;
		entry->key_index = key_index;
		entry->generation = keys_generation;
	}
	return &entry->ff1;
}

const Ff1 *
flakeid_mask_cipher(const FlakeFormat *format, const char *purpose, size_t purpose_len, int *key_id)
{
	if (unlikely(keys_need_reading()))
		load_keys();
	if (key_count == 0)
		no_key();
	*key_id = key_ids[0];
	return cipher(&cache[format->id][0], format, 0, purpose, purpose_len);
}

const Ff1 *
flakeid_unmask_cipher(const FlakeFormat *format, const char *purpose, size_t purpose_len, int key_id)
{
	if (unlikely(keys_need_reading()))
		load_keys();
	if (key_count == 0)
		no_key();
	for (int i = 0; i < key_count; i++)
		if (key_ids[i] == key_id)
			return cipher(&cache[format->id][1], format, i, purpose, purpose_len);
	return NULL;
}

/*
 * flakeid_mask_keys(): each key of the file as this session reads it, with
 * its check value (ff1_key_check_value, 6 hex digits) and whether it masks
 * (the first).  An operator compares them across servers: a key ID whose
 * key differs elsewhere unmasks that server's tokens to unrelated IDs,
 * silently (issue 80, item 3).  Raises 55000, as the masks do, with no key.
 * Revoked from PUBLIC by the install script.
 */
PG_FUNCTION_INFO_V1(flakeid_mask_keys);

Datum
flakeid_mask_keys(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;

	if (unlikely(keys_need_reading()))
		load_keys();
	if (key_count == 0)
		no_key();
	InitMaterializedSRF(fcinfo, 0);
	for (int i = 0; i < key_count; i++)
	{
		uint8		check[FF1_CHECK_VALUE_BYTES];
		char		hex[2 * FF1_CHECK_VALUE_BYTES + 1];
		Datum		values[3];
		bool		nulls[3] = {false, false, false};

		ff1_key_check_value(&keys[i], check);
		for (int b = 0; b < FF1_CHECK_VALUE_BYTES; b++)
			snprintf(hex + 2 * b, 3, "%02x", check[b]);
		values[0] = Int32GetDatum(key_ids[i]);
		values[1] = CStringGetTextDatum(hex);
		values[2] = BoolGetDatum(i == 0);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}
