/* The list of probes, built from probes.def. */
#include <stdio.h>
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

const struct mmp_probe *mmp_probe_ceiling(void)
{
	for (size_t i = 0; i < sizeof(registry) / sizeof(registry[0]); i++)
		if (registry[i]->role == MMP_PROBE_CEILING)
			return registry[i];
	return NULL;
}

int mmp_probe_uses(const struct mmp_probe *probe, enum mmp_key_id key)
{
	if (probe->ignores & MMP_KEY_BIT(key))
		return 0;
	/* A copy of the data in anonymous memory replaces a mapping; the
	 * probes with memory of their own bind it, huge pages or not; a
	 * program's large mappings are advised through the preload library. */
	if (key == MMP_KEY_DATA)
		return (probe->needs & MMP_NEEDS_MAP) != 0;
	if (key == MMP_KEY_HUGEPAGES)
		return (probe->needs & (MMP_NEEDS_MAP | MMP_NEEDS_WORK | MMP_NEEDS_PROCESS)) != 0;
	/* A mapping's first touch is there wherever its faults are. */
	if (key == MMP_KEY_TOUCH)
		key = MMP_KEY_PREFAULT;
	if (!(MMP_PROBE_SPECIFIC_KEYS & MMP_KEY_BIT(key)))
		return 1;
	return (probe->uses & MMP_KEY_BIT(key)) != 0;
}

enum mmp_run_kind mmp_probe_kind(const struct mmp_probe *probe)
{
	return probe->needs & MMP_NEEDS_PROCESS ? MMP_RUN_KIND_PROCESS : MMP_RUN_KIND_THREADS;
}

int mmp_probe_reads_file(const struct mmp_probe *probe)
{
	return (probe->needs & MMP_NEEDS_FILE) != 0;
}

int mmp_run_reads_file(const struct mmp_params *p)
{
	if (!mmp_probe_reads_file(p->probe))
		return 0;
	return !(p->probe->needs & MMP_NEEDS_PROCESS) || p->file || p->size;
}

uint64_t mmp_probe_buffer_bytes(const struct mmp_probe *probe, const struct mmp_params *p)
{
	uint64_t bytes = 0;
	if (probe->access_mode == MMP_ACCESS_BLOCK)
		bytes = mmp_params_access(p);
	if (mmp_probe_uses(probe, MMP_KEY_BUFFER) && p->buffer > bytes)
		bytes = p->buffer;
	return bytes;
}

const char *mmp_params_label(const struct mmp_params *p, char *buf, size_t len)
{
	const char *name = p->probe->label ? p->probe->label : p->probe->name;
	if (mmp_probe_uses(p->probe, MMP_KEY_BUFFER))
		snprintf(buf, len, "%s(%llu)", name, (unsigned long long)p->buffer);
	else if (p->probe->access_mode == MMP_ACCESS_BLOCK)
		snprintf(buf, len, "%s(%llu)", name, (unsigned long long)mmp_params_access(p));
	else
		snprintf(buf, len, "%s", name);
	return buf;
}

uint64_t mmp_params_access(const struct mmp_params *p)
{
	switch (p->probe->access_mode) {
	case MMP_ACCESS_BYTE:
		return 1;
	case MMP_ACCESS_BLOCK:
		if (p->access)
			return p->access;
		return p->probe->default_access ? p->probe->default_access : p->buffer;
	case MMP_ACCESS_DECLARED:
		return p->access;
	case MMP_ACCESS_WHOLE:
		break;
	}
	return 0;
}
