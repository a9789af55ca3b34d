/*
 * formats.c — the table of format descriptions (see format.h)
 */
#include "format.h"

#include <string.h>

#define FLAKE_FORMAT_ENTRY(id, name) [FLAKE_##id] = &name##_format,
const FlakeFormat *const flake_formats[FLAKE_FORMAT_COUNT] = {
	FLAKE_FORMAT_LIST(FLAKE_FORMAT_ENTRY)
};

const FlakeFormat *
flake_format_by_name(const char *name)
{
	for (int f = 0; f < FLAKE_FORMAT_COUNT; f++)
		if (strcmp(flake_formats[f]->name, name) == 0)
			return flake_formats[f];
	return NULL;
}
