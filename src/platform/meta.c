#include "platform/meta.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "util/units.h"

static void cpu_model(char *buf, size_t len)
{
	char line[512];
	FILE *f = fopen("/proc/cpuinfo", "r");
	snprintf(buf, len, "unknown");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "model name", 10) != 0)
			continue;
		char *v = strchr(line, ':');
		if (!v)
			break;
		v++;
		while (*v == ' ' || *v == '\t')
			v++;
		v[strcspn(v, "\n")] = '\0';
		snprintf(buf, len, "%s", v);
		break;
	}
	fclose(f);
}

static void host_name(char *buf, size_t len)
{
	if (gethostname(buf, len - 1))
		snprintf(buf, len, "unknown");
	buf[len - 1] = '\0';
}

void mmp_meta_short_host(char *buf, size_t len)
{
	host_name(buf, len);
	buf[strcspn(buf, ".")] = '\0';
}

void mmp_meta_collect(struct mmp_meta *m)
{
	struct utsname u;
	uint64_t id = 0;
	time_t now = time(NULL);
	struct tm tm;

	memset(m, 0, sizeof(*m));
	if (getrandom(&id, sizeof(id), 0) != (ssize_t)sizeof(id))
		id = mmp_now_ns() ^ ((uint64_t)getpid() << 32);
	snprintf(m->run_id, sizeof(m->run_id), "%016llx", (unsigned long long)id);
	host_name(m->host, sizeof(m->host));
	cpu_model(m->cpu_model, sizeof(m->cpu_model));
	if (uname(&u) == 0)
		snprintf(m->kernel_release, sizeof(m->kernel_release), "%s", u.release);
	gmtime_r(&now, &tm);
	strftime(m->started_at, sizeof(m->started_at), "%Y-%m-%dT%H:%M:%SZ", &tm);
	mmp_platform_identify(&m->platform);
}
