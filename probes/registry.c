/* The list of probes, built from probes.def. */
#include <string.h>

#include "mmprof/probe.h"

#define MMP_PROBE(name) extern const struct mmp_probe mmp_probe_##name;
#include "probes.def"
#undef MMP_PROBE

static const struct mmp_probe *const registry[] = {
#define MMP_PROBE(name) &mmp_probe_##name,
#include "probes.def"
#undef MMP_PROBE
};

const struct mmp_probe *const *mmp_probe_all(size_t *count)
{
	*count = sizeof(registry) / sizeof(registry[0]);
	return registry;
}

const struct mmp_probe *mmp_probe_find(const char *name)
{
	for (size_t i = 0; i < sizeof(registry) / sizeof(registry[0]); i++)
		if (strcmp(registry[i]->name, name) == 0)
			return registry[i];
	return NULL;
}

int mmp_probe_uses(const struct mmp_probe *probe, enum mmp_key_id key)
{
	if (!(MMP_PROBE_SPECIFIC_KEYS & MMP_KEY_BIT(key)))
		return 1;
	return (probe->uses & MMP_KEY_BIT(key)) != 0;
}

uint64_t mmp_probe_buffer_bytes(const struct mmp_probe *probe, const struct mmp_params *p)
{
	uint64_t bytes = 0;
	if (probe->access_mode == MMP_ACCESS_BLOCK)
		bytes = mmp_probe_access(probe, p->access);
	if (mmp_probe_uses(probe, MMP_KEY_BUFFER) && p->buffer > bytes)
		bytes = p->buffer;
	return bytes;
}

uint64_t mmp_probe_access(const struct mmp_probe *probe, uint64_t access)
{
	switch (probe->access_mode) {
	case MMP_ACCESS_BYTE:
		return 1;
	case MMP_ACCESS_BLOCK:
		return access ? access : probe->default_access;
	case MMP_ACCESS_WHOLE:
		break;
	}
	return 0;
}
