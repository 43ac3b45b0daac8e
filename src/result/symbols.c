/* Naming sampled addresses (see symbols.h): elfutils for files, the perf
 * map for JIT code. */
#include "result/symbols.h"

#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/strtab.h"
#include "util/vec.h"

#define MAX_LOADS 16

/* One ELF file, opened once for every process that mapped it. */
struct module {
	const char *path; /* interned */
	int fd;
	Elf *elf;
	Dwfl *dwfl;
	Dwfl_Module *mod;
	int has_symtab;
	size_t nload;
	struct { uint64_t offset, filesz, vaddr; } load[MAX_LOADS];
};

struct jit_sym {
	uint64_t start, size;
	const char *name; /* interned */
	uint32_t pid;     /* the process whose map named it */
};

/* (module, address, caller) -> its frame: each is looked up once. */
struct cached {
	uint64_t addr;
	int module; /* -1: empty slot */
	int caller;
	struct mmp_frame frame;
};

struct mmp_symbols {
	struct mmp_strtab *str;
	struct module *mod;
	size_t nmod, modcap;
	struct cached *cache;
	size_t ncache, cachecap; /* cachecap a power of two */
	/* The process being named. */
	const struct mmp_samples *samples;
	struct jit_sym *jit;
	size_t njit;
	int has_perf_map;
};

static const char *const why_text[MMP_UNNAMED_COUNT] = {
	[MMP_NAMED] = "named",
	[MMP_NO_LINE] = "no source line (built without -g?)",
	[MMP_STRIPPED] = "stripped (no symbol covers it)",
	[MMP_NO_PERF_MAP] = "code outside any file (JIT?) and no /tmp/perf-PID.map",
	[MMP_NOT_IN_PERF_MAP] = "anonymous code the perf map does not name",
	[MMP_NO_MAPPING] = "no mapping recorded there",
	[MMP_UNREADABLE] = "not a readable ELF file",
	[MMP_KERNEL] = "kernel code (not named here)",
};

const char *mmp_unnamed_why(enum mmp_unnamed u)
{
	return u < MMP_UNNAMED_COUNT ? why_text[u] : "?";
}

int mmp_symbols_new(struct mmp_symbols **out)
{
	struct mmp_symbols *sy = calloc(1, sizeof(*sy));
	*out = NULL;
	if (!sy || mmp_strtab_new(&sy->str)) {
		free(sy);
		return -ENOMEM;
	}
	elf_version(EV_CURRENT);
	*out = sy;
	return 0;
}

static void module_close(struct module *m)
{
	if (m->dwfl)
		dwfl_end(m->dwfl);
	if (m->elf)
		elf_end(m->elf);
	if (m->fd >= 0)
		close(m->fd);
}

void mmp_symbols_free(struct mmp_symbols *sy)
{
	if (!sy)
		return;
	for (size_t i = 0; i < sy->nmod; i++)
		module_close(&sy->mod[i]);
	free(sy->mod);
	free(sy->cache);
	free(sy->jit);
	mmp_strtab_free(sy->str);
	free(sy);
}

static const Dwfl_Callbacks callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	/* Separate debug info (/usr/lib/debug, by build id) too. */
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

/* Open path's ELF and DWARF once; a file that is not ELF is kept too
 * (with no Elf) so it is not tried again. */
static int module_of(struct mmp_symbols *sy, const char *path)
{
	for (size_t i = 0; i < sy->nmod; i++)
		if (strcmp(sy->mod[i].path, path) == 0)
			return (int)i;
	if (MMP_VEC_RESERVE(sy->mod, sy->modcap, sy->nmod + 1))
		return -ENOMEM;
	struct module *m = &sy->mod[sy->nmod];
	memset(m, 0, sizeof(*m));
	m->path = mmp_strtab_add(sy->str, path);
	if (!m->path)
		return -ENOMEM;
	m->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (m->fd >= 0)
		m->elf = elf_begin(m->fd, ELF_C_READ_MMAP, NULL);
	size_t phnum = 0;
	if (m->elf && elf_kind(m->elf) == ELF_K_ELF && elf_getphdrnum(m->elf, &phnum) == 0) {
		for (size_t i = 0; i < phnum && m->nload < MAX_LOADS; i++) {
			GElf_Phdr ph;
			if (gelf_getphdr(m->elf, (int)i, &ph) && ph.p_type == PT_LOAD) {
				m->load[m->nload].offset = ph.p_offset;
				m->load[m->nload].filesz = ph.p_filesz;
				m->load[m->nload].vaddr = ph.p_vaddr;
				m->nload++;
			}
		}
		Elf_Scn *scn = NULL;
		while ((scn = elf_nextscn(m->elf, scn))) {
			GElf_Shdr sh;
			if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB)
				m->has_symtab = 1;
		}
		/* Reported at bias 0: lookups use the file's own addresses,
		 * the same in every process whatever ASLR did. */
		m->dwfl = dwfl_begin(&callbacks);
		if (m->dwfl) {
			dwfl_report_begin(m->dwfl);
			m->mod = dwfl_report_elf(m->dwfl, path, path, -1, 0, true);
			dwfl_report_end(m->dwfl, NULL, NULL);
		}
	}
	return (int)sy->nmod++;
}

static int by_start(const void *a, const void *b)
{
	const struct jit_sym *x = a, *y = b;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

/* The process's perf maps, read by the sampler when it exited (each line
 * "START SIZE name", hexadecimal), sorted by process and address. */
static int read_perf_maps(struct mmp_symbols *sy, const struct mmp_samples *samples)
{
	size_t cap = 0;
	free(sy->jit);
	sy->jit = NULL;
	sy->njit = 0;
	sy->has_perf_map = samples->nperf_map > 0;
	for (size_t m = 0; m < samples->nperf_map; m++) {
		const struct mmp_perf_map *pm = &samples->perf_map[m];
		for (const char *line = pm->text; line && *line;) {
			const char *eol = strchr(line, '\n');
			size_t len = eol ? (size_t)(eol - line) : strlen(line);
			char buf[4096];
			uint64_t start, size;
			int at = 0;
			snprintf(buf, sizeof(buf), "%.*s", (int)(len < sizeof(buf) ? len : sizeof(buf) - 1),
				 line);
			line = eol ? eol + 1 : NULL;
			if (sscanf(buf, "%" SCNx64 " %" SCNx64 " %n", &start, &size, &at) < 2 || !at)
				continue;
			if (MMP_VEC_RESERVE(sy->jit, cap, sy->njit + 1))
				return -ENOMEM;
			const char *name = mmp_strtab_add(sy->str, buf + at);
			if (!name)
				return -ENOMEM;
			sy->jit[sy->njit++] = (struct jit_sym){ start, size, name, pm->pid };
		}
	}
	if (sy->njit)
		qsort(sy->jit, sy->njit, sizeof(*sy->jit), by_start);
	return 0;
}

int mmp_symbols_process(struct mmp_symbols *sy, const struct mmp_samples *samples)
{
	sy->samples = samples;
	return read_perf_maps(sy, samples);
}

const struct mmp_samples *mmp_symbols_samples(const struct mmp_symbols *sy)
{
	return sy->samples;
}

int mmp_symbols_has_perf_map(const struct mmp_symbols *sy)
{
	return sy->has_perf_map;
}

/* The mapping holding addr in pid at time t: the latest one made before
 * t, else any (a record's time and a sample's can be from two CPUs). */
static const struct mmp_sample_map *mapping_at(const struct mmp_samples *s, uint32_t pid,
					       uint64_t addr, uint64_t t)
{
	const struct mmp_sample_map *best = NULL, *any = NULL;
	for (size_t i = 0; i < s->nmap; i++) {
		const struct mmp_sample_map *m = &s->map[i];
		if (m->pid != pid || addr < m->start || addr - m->start >= m->len)
			continue;
		if (m->time <= t && (!best || m->time >= best->time))
			best = m;
		if (!any || m->time > any->time)
			any = m;
	}
	return best ? best : any;
}

static const struct jit_sym *jit_in(const struct mmp_symbols *sy, uint32_t pid, uint64_t ip)
{
	size_t lo = 0, hi = sy->njit;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct jit_sym *j = &sy->jit[mid];
		if (j->pid < pid || (j->pid == pid && j->start <= ip))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	const struct jit_sym *j = &sy->jit[lo - 1];
	return j->pid == pid && ip - j->start < j->size ? j : NULL;
}

/* A process with no map of its own (a child forked by a runtime, not
 * exec'd) runs its parent's code: the program's map names it. */
static const struct jit_sym *jit_at(const struct mmp_symbols *sy, uint32_t pid, uint64_t ip)
{
	const struct jit_sym *j = jit_in(sy, pid, ip);
	if (!j && pid != (uint32_t)sy->samples->pid)
		j = jit_in(sy, (uint32_t)sy->samples->pid, ip);
	return j;
}

static int is_file(const char *name)
{
	/* "//anon" is perf's name for an anonymous mapping (JIT code), and a
	 * memfd is one too (.NET's W^X runs its code from a read-execute
	 * view of "memfd:doublemapper"): their names are in the perf map,
	 * not in a file. */
	return name[0] == '/' && name[1] != '/' && strncmp(name, "/memfd:", 7) != 0 &&
	       !strstr(name, " (deleted)");
}

static size_t hash(int module, uint64_t addr, int caller)
{
	uint64_t h = addr * 0x9e3779b97f4a7c15u ^ (uint64_t)module * 0xc2b2ae3d27d4eb4fu;
	return (size_t)(h ^ (h >> 29) ^ (uint64_t)caller);
}

static int cache_grow(struct mmp_symbols *sy)
{
	size_t cap = sy->cachecap ? 2 * sy->cachecap : 4096;
	struct cached *c = malloc(cap * sizeof(*c));
	if (!c)
		return -ENOMEM;
	for (size_t i = 0; i < cap; i++)
		c[i].module = -1;
	for (size_t i = 0; i < sy->cachecap; i++) {
		if (sy->cache[i].module < 0)
			continue;
		size_t k = hash(sy->cache[i].module, sy->cache[i].addr, sy->cache[i].caller);
		while (c[k & (cap - 1)].module >= 0)
			k++;
		c[k & (cap - 1)] = sy->cache[i];
	}
	free(sy->cache);
	sy->cache = c;
	sy->cachecap = cap;
	return 0;
}

/* Function and line of a file's own address, through libdwfl. */
static int name_in_file(struct mmp_symbols *sy, int mi, uint64_t addr, int caller,
			struct mmp_frame *out)
{
	struct module *m = &sy->mod[mi];
	if (2 * (sy->ncache + 1) > sy->cachecap && cache_grow(sy))
		return -ENOMEM;
	size_t k = hash(mi, addr, caller);
	for (;; k++) {
		struct cached *c = &sy->cache[k & (sy->cachecap - 1)];
		if (c->module < 0)
			break;
		if (c->module == mi && c->addr == addr && c->caller == caller) {
			*out = c->frame;
			return 0;
		}
	}
	struct mmp_frame f = { .module = m->path, .offset = addr, .why = MMP_UNREADABLE };
	if (m->mod) {
		/* A return address is after its call: the call's line is
		 * the instruction before. */
		uint64_t at = caller && addr ? addr - 1 : addr;
		GElf_Off off;
		GElf_Sym sym;
		const char *fn = dwfl_module_addrinfo(m->mod, at, &off, &sym, NULL, NULL, NULL);
		Dwfl_Line *l = dwfl_module_getsrc(m->mod, at);
		int line = 0;
		const char *src = l ? dwfl_lineinfo(l, NULL, &line, NULL, NULL, NULL) : NULL;
		f.function = fn ? mmp_strtab_add(sy->str, fn) : NULL;
		f.file = src ? mmp_strtab_add(sy->str, src) : NULL;
		f.line = src && line > 0 ? (unsigned)line : 0;
		if ((fn && !f.function) || (src && !f.file))
			return -ENOMEM;
		f.why = !fn ? MMP_STRIPPED : !f.file ? MMP_NO_LINE : MMP_NAMED;
	}
	struct cached *c = &sy->cache[k & (sy->cachecap - 1)];
	*c = (struct cached){ .addr = addr, .module = mi, .caller = caller, .frame = f };
	sy->ncache++;
	*out = f;
	return 0;
}

/* A mapping's address as the file's own (the PT_LOAD segment holding
 * that file offset); 0 when no segment does. */
static int file_address(const struct module *m, const struct mmp_sample_map *map, uint64_t ip,
			uint64_t *addr)
{
	uint64_t off = ip - map->start + map->pgoff;
	for (size_t i = 0; i < m->nload; i++) {
		if (off >= m->load[i].offset && off - m->load[i].offset < m->load[i].filesz) {
			*addr = off - m->load[i].offset + m->load[i].vaddr;
			return 1;
		}
	}
	*addr = off;
	return 0;
}

int mmp_symbols_name(struct mmp_symbols *sy, uint32_t pid, uint64_t ip, uint64_t time,
		     int caller, struct mmp_frame *out)
{
	const struct mmp_sample_map *map = mapping_at(sy->samples, pid, ip, time);
	memset(out, 0, sizeof(*out));
	if (map && is_file(map->name)) {
		int mi = module_of(sy, map->name);
		uint64_t addr;
		if (mi < 0)
			return mi;
		if (!file_address(&sy->mod[mi], map, ip, &addr) || !sy->mod[mi].mod) {
			*out = (struct mmp_frame){ .module = sy->mod[mi].path, .offset = addr,
						   .why = MMP_UNREADABLE };
			return 0;
		}
		int rc = name_in_file(sy, mi, addr, caller, out);
		if (!rc && out->why == MMP_STRIPPED && sy->mod[mi].has_symtab)
			out->why = MMP_STRIPPED; /* a symbol table, but not here */
		return rc;
	}
	const struct jit_sym *j = jit_at(sy, pid, ip);
	if (j) {
		*out = (struct mmp_frame){ .module = "[jit]", .function = j->name,
					   .offset = ip - j->start, .why = MMP_NO_LINE };
		return 0;
	}
	if (map) {
		out->module = mmp_strtab_add(sy->str, map->name);
		if (!out->module)
			return -ENOMEM;
		out->offset = ip - map->start;
		out->why = map->name[0] == '[' ? MMP_UNREADABLE
			   : sy->has_perf_map  ? MMP_NOT_IN_PERF_MAP
					       : MMP_NO_PERF_MAP;
		return 0;
	}
	out->module = "[unknown]";
	out->offset = ip;
	out->why = sy->has_perf_map ? MMP_NO_MAPPING : MMP_NO_PERF_MAP;
	return 0;
}

const char *mmp_symbols_mapping(struct mmp_symbols *sy, uint32_t pid, uint64_t addr,
				uint64_t time)
{
	const struct mmp_sample_map *map = mapping_at(sy->samples, pid, addr, time);
	if (!map)
		return NULL;
	if (strcmp(map->name, "//anon") == 0)
		return "anonymous";
	return mmp_strtab_add(sy->str, map->name);
}
