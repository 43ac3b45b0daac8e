/* The preload library's mmprof side (see preload.h). */
#include "run/preload.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef MMPROF_LIBDIR
#define MMPROF_LIBDIR "/usr/local/lib/mmprof"
#endif
#ifndef MMPROF_PRELOAD_BUILT
#define MMPROF_PRELOAD_BUILT ""
#endif
#define LIBNAME "libmmprof-preload.so"

extern char **environ;

static int readable(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, R_OK) == 0;
}

int mmp_preload_find(char *buf, size_t len)
{
	char exe[PATH_MAX], tried[1024];
	size_t used = 0;
	const char *env = getenv("MMPROF_PRELOAD");
	if (env && *env) {
		/* The loader takes a path relative to the program's directory
		 * at best: make it absolute. */
		if (realpath(env, exe) && readable(exe)) {
			snprintf(buf, len, "%s", exe);
			return 0;
		}
		snprintf(buf, len, "MMPROF_PRELOAD=%s: no such readable file", env);
		return -ENOENT;
	}
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = '\0';
	char *slash = strrchr(exe, '/');
	if (slash)
		*slash = '\0';
	const char *cand[3] = { NULL, MMPROF_PRELOAD_BUILT, MMPROF_LIBDIR "/" LIBNAME };
	char beside[PATH_MAX + 64];
	snprintf(beside, sizeof(beside), "%s/../lib/mmprof/" LIBNAME, exe);
	cand[0] = beside;
	for (size_t i = 0; i < 3; i++) {
		char real[PATH_MAX];
		if (!cand[i][0])
			continue;
		if (readable(cand[i]) && realpath(cand[i], real)) {
			snprintf(buf, len, "%s", real);
			return 0;
		}
		used += (size_t)snprintf(tried + used, used < sizeof(tried) ? sizeof(tried) - used : 0,
					 "%s%s", used ? ", " : "", cand[i]);
	}
	snprintf(buf, len, "%s not found (looked in %s; MMPROF_PRELOAD names it)", LIBNAME,
		 used < sizeof(tried) ? tried : "several places");
	return -ENOENT;
}

static char *pair(const char *name, const char *a, const char *b)
{
	size_t n = strlen(name) + strlen(a) + (b ? strlen(b) + 1 : 0) + 2;
	char *s = malloc(n);
	if (s)
		snprintf(s, n, "%s=%s%s%s", name, a, b ? ":" : "", b ? b : "");
	return s;
}

static int named(const char *entry, const char *name)
{
	size_t n = strlen(name);
	return strncmp(entry, name, n) == 0 && entry[n] == '=';
}

char **mmp_preload_env(char *const *base, const char *lib, const char *mode, const char *report)
{
	size_t n = 0, k = 0;
	const char *old = NULL;
	if (!base)
		base = environ;
	while (base && base[n])
		n++;
	char **env = calloc(n + 4, sizeof(*env));
	if (!env)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (named(base[i], "LD_PRELOAD"))
			old = base[i] + strlen("LD_PRELOAD=");
		if (named(base[i], "LD_PRELOAD") || named(base[i], "MMPROF_PRELOAD_MODE") ||
		    named(base[i], "MMPROF_PRELOAD_REPORT"))
			continue;
		if (!(env[k++] = strdup(base[i])))
			goto nomem;
	}
	if (!(env[k++] = pair("LD_PRELOAD", lib, old && *old ? old : NULL)) ||
	    !(env[k++] = pair("MMPROF_PRELOAD_MODE", mode, NULL)) ||
	    !(env[k++] = pair("MMPROF_PRELOAD_REPORT", report, NULL)))
		goto nomem;
	return env;
nomem:
	mmp_preload_env_free(env);
	return NULL;
}

void mmp_preload_env_free(char **env)
{
	for (size_t i = 0; env && env[i]; i++)
		free(env[i]);
	free(env);
}

const char *const mmp_preload_aside_names[MMP_ASIDE_N] = {
	[MMP_ASIDE_DUP] = "dup",	 [MMP_ASIDE_FORK] = "fork",
	[MMP_ASIDE_SPAWN] = "spawn",	 [MMP_ASIDE_EXEC] = "exec",
	[MMP_ASIDE_WRITE] = "write",	 [MMP_ASIDE_READV] = "readv",
	[MMP_ASIDE_SENDFILE] = "sendfile", [MMP_ASIDE_FDOPEN] = "fdopen",
	[MMP_ASIDE_ODIRECT] = "odirect", [MMP_ASIDE_FULL] = "full",
	[MMP_ASIDE_OTHER] = "other",
};

/* "aside PID FD WHY": one descriptor more stepped aside for why. */
static void read_aside(const char *line, struct mmp_preload_report *r)
{
	char why[32];
	unsigned long long pid, fd;
	size_t k = 0;
	if (sscanf(line, "aside %llu %llu %31s", &pid, &fd, why) != 3)
		return;
	while (k < MMP_ASIDE_OTHER && strcmp(why, mmp_preload_aside_names[k]) != 0)
		k++;
	r->aside[k]++;
}

void mmp_preload_asides(const struct mmp_preload_report *r, char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = '\0';
	for (size_t k = 0; k < MMP_ASIDE_N; k++)
		if (r->aside[k] && used < len)
			used += (size_t)snprintf(buf + used, len - used, "%s%s %llu", used ? ", " : "",
						 mmp_preload_aside_names[k],
						 (unsigned long long)r->aside[k]);
}

/* An alloc line: a malloc'd block, counted in the totals as a mapping's
 * bytes are, and apart. */
static void add_block(struct mmp_preload_report *r, int got, const unsigned long long *v)
{
	r->blocks++;
	r->present += v[1];
	r->advised += v[2];
	r->touched += v[3];
	r->block_present += v[1];
	r->block_advised += v[2];
	if (got == 7 && v[4]) {
		r->refused++;
		r->refused_errno = (int)v[4];
	}
}

int mmp_preload_read(const char *path, struct mmp_preload_report *r)
{
	char line[256], word[16], why[8];
	memset(r, 0, sizeof(*r));
	FILE *f = fopen(path, "re");
	if (!f)
		return errno == ENOENT ? 0 : -errno;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long pid, a = 0, b = 0, c = 0, d = 0, v[5] = { 0 };
		int got = sscanf(line, "%15s %llu %llu %llu %llu %llu", word, &pid, &a, &b, &c, &d);
		if (got < 2)
			continue;
		if (strcmp(word, "alloc") == 0) {
			got = sscanf(line, "%*s %llu %llu %llu %llu %llu %llu", &pid, &v[0], &v[1],
				     &v[2], &v[3], &v[4]);
			if (got >= 6)
				add_block(r, got + 1, v);
		} else if (strcmp(word, "noalloc") == 0 && sscanf(line, "%*s %*u %7s", why) == 1) {
			r->noalloc++;
			snprintf(r->noalloc_why, sizeof(r->noalloc_why), "%s", why);
		} else if (strcmp(word, "load") == 0) {
			r->loaded++;
		} else if (strcmp(word, "exit") == 0) {
			r->exited++;
		} else if (strcmp(word, "map") == 0 && got >= 5) {
			r->mappings++;
			r->present += b;
			r->advised += c;
			r->touched += got == 6 ? d : 0;
		} else if (strcmp(word, "huge") == 0 && got >= 3) {
			r->huge += a;
		} else if (strcmp(word, "bulk") == 0 && got == 6) { /* bulk PID FD CALLS SERVED SYSCALLS */
			r->calls += b;
			r->served += c;
			r->syscalls += d;
		} else if (strcmp(word, "aside") == 0) {
			read_aside(line, r);
		} else if ((strcmp(word, "seenmap") == 0 || strcmp(word, "seenalloc") == 0) &&
			   got == 6) { /* seenmap PID LEN POP ADV TOUCH */
			*(word[4] == 'm' ? &r->seen.mappings : &r->seen.blocks) += 1;
			r->seen.populate += b;
			r->seen.advise += c;
			r->seen.touch += d;
		} else if (strcmp(word, "seenreads") == 0 && got >= 3) {
			r->seen.reads += a;
		}
	}
	fclose(f);
	return 0;
}

const char *mmp_preload_why_not(const char *exe, char *buf, size_t len)
{
	struct stat st;
	unsigned char ident[EI_NIDENT];
	int fd = open(exe, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	/* The loader runs in secure mode, and drops LD_PRELOAD paths, when the
	 * exec changes who the process is: a setuid file of another owner
	 * (root running its own setuid file changes nothing). */
	if (fstat(fd, &st) == 0 && (((st.st_mode & S_ISUID) && st.st_uid != getuid()) ||
				    ((st.st_mode & S_ISGID) && st.st_gid != getgid()))) {
		close(fd);
		snprintf(buf, len, "%s is set%sid: the loader ignores LD_PRELOAD for it", exe,
			 st.st_mode & S_ISUID && st.st_uid != getuid() ? "u" : "g");
		return buf;
	}
	const char *why = NULL;
	if (pread(fd, ident, sizeof(ident), 0) != (ssize_t)sizeof(ident) ||
	    memcmp(ident, ELFMAG, SELFMAG) != 0)
		goto out; /* a script: its interpreter loads the library */
	/* A program without an interpreter (PT_INTERP) is linked statically:
	 * no loader runs, nothing reads LD_PRELOAD. */
	int interp = 0;
	if (ident[EI_CLASS] == ELFCLASS64) {
		Elf64_Ehdr eh;
		if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh))
			goto out;
		for (unsigned i = 0; i < eh.e_phnum && !interp; i++) {
			Elf64_Phdr ph;
			if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + (uint64_t)i * eh.e_phentsize)) !=
			    (ssize_t)sizeof(ph))
				goto out;
			interp = ph.p_type == PT_INTERP;
		}
	} else {
		Elf32_Ehdr eh;
		if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh))
			goto out;
		for (unsigned i = 0; i < eh.e_phnum && !interp; i++) {
			Elf32_Phdr ph;
			if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + (uint64_t)i * eh.e_phentsize)) !=
			    (ssize_t)sizeof(ph))
				goto out;
			interp = ph.p_type == PT_INTERP;
		}
	}
	if (!interp) {
		snprintf(buf, len, "%s is a static binary (no ELF interpreter): no loader reads "
				   "LD_PRELOAD",
			 exe);
		why = buf;
	}
out:
	close(fd);
	return why;
}
