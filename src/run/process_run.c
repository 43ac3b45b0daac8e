/* The process engine: a program per repetition (see process_run.h, engine.h). */
#include "run/process_run.h"
#include "run/engine.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "run/capture.h"
#include "run/child_env.h"
#include "run/command.h"
#include "run/concurrency.h"
#include "run/exec_child.h"
#include "platform/memory.h"
#include "run/output_log.h"
#include "platform/hypervisor.h"
#include "run/preload.h"
#include "mmprof/probe.h"
#include "platform/pu_tasks.h"
#include "run/pu_watch.h"
#include "platform/sampling.h"

/* A log's path: NAME.logs/RUNID/run<N>-<job>.<k>.log. */
#define LOG_PATH_MAX 4096

struct mmp_process_run {
	const struct mmp_runner_item *item;
	struct mmp_argv argv;
	char exe[4096];
	char line[8192]; /* the argv quoted, for the log's first line */
	int pus[MMP_CPULIST_MAX];
	unsigned npus;
	char pulist[MMP_CPULIST_MAX];
	struct mmp_capture result, time;
	int check_result, own_time;
	uint64_t expected; /* the reference's result */
	uint64_t end;
	unsigned seq; /* processes started */
	char log[LOG_PATH_MAX];
	int mpol; /* the program's memory policy (membind) */
	unsigned long nodemask[MMP_NODEMASK_BITS / (8 * sizeof(unsigned long))];
	int *open_error;
	int pressure_fd;
	/* prefault, touch, huge, bulk: the preload library and its mode
	 * ("" when not asked); why it cannot change anything, when known before it runs */
	char preload_lib[4096];
	char preload_mode[32];
	char preload_why[4352];
	int preload_found;
	int survey_found; /* 0: not looked for yet; 1 found; -1 not (preload_why says) */
	struct mmp_tracepoint_hold held; /* the run's tracepoints, for its repetitions' closes */
	/* The last repetition's samples (p->ext.samples points here), and why
	 * sampling was refused. */
	struct mmp_samples samples;
	char samples_why[320];
	char tasks_why[200]; /* why other tasks on its PUs are not told apart */
	/* The last half of each log's output passes through here
	 * (output_log.h), log_max / 2 bytes, touched only by a program that
	 * prints more than the other half. */
	char *ring;
	size_t ring_len;
	/* Its environment when the job changes it (env =, jitnames), and the
	 * MMP_JIT_* jitnames set: the perf maps it asked for are removed
	 * once read. */
	struct mmp_child_env env;
	int own_env;
	unsigned jit;
	struct mmp_rep_process ext; /* the last repetition's (rep->process) */
};

static uint64_t expected_result(const struct mmp_runner_item *item)
{
	const uint64_t *ref = item->reference ? item->reference : item->data->hist;
	uint64_t sum = 0;
	if (item->run->p.kernel == MMP_KERNEL_ZEROS)
		return ref[0];
	for (int b = 0; b < 256; b++)
		sum += (uint64_t)b * ref[b];
	return sum;
}

/* The run's PUs without repeats (oversubscribed plans repeat them). */
static void distinct_pus(struct mmp_process_run *p, const struct mmp_pin_plan *plan)
{
	size_t used = 0;
	for (unsigned t = 0; t < plan->nthreads; t++) {
		int seen = 0;
		for (unsigned i = 0; i < p->npus && !seen; i++)
			seen = p->pus[i] == plan->pu[t];
		if (seen || p->npus == MMP_CPULIST_MAX)
			continue;
		p->pus[p->npus++] = plan->pu[t];
		if (used < sizeof(p->pulist))
			used += (size_t)snprintf(p->pulist + used, sizeof(p->pulist) - used, "%s%d",
						 used ? "," : "", plan->pu[t]);
	}
}

/* The command's argv with the run's placeholders filled, its executable
 * found, and the regexes its result and its time are read with. */
static int command_init(struct mmp_process_run *p, struct mmp_error *err)
{
	const struct mmp_runner_item *item = p->item;
	const struct mmp_run *run = item->run;
	const struct mmp_params *par = &run->p;
	char msg[512];
	int rc;

	struct mmp_command_vars vars = {
		.file = item->data ? item->data->path : NULL,
		.size = item->data ? item->data->size : 0,
		.threads = par->threads,
		.access = mmp_params_access(par),
		.pus = p->pulist,
		.npus = p->npus,
		.kernel = mmp_kernel_names[par->kernel],
		.job = run->job->name,
		.run = run->index + 1,
	};
	rc = mmp_command_expand(par->command, &vars, &p->argv, msg, sizeof(msg));
	if (rc)
		return mmp_error_set(err, rc, "command = %s: %s", par->command, msg);
	if (mmp_command_quote(p->argv.v, p->argv.n, p->line, sizeof(p->line)))
		snprintf(p->line, sizeof(p->line), "%s ...", p->argv.v[0]);
	rc = mmp_exec_child_find(p->argv.v[0], p->exe, sizeof(p->exe), err);
	if (rc)
		return rc;
	p->check_result = par->result != NULL;
	if (p->check_result && (rc = mmp_capture_compile(&p->result, par->result, msg, sizeof(msg))))
		return mmp_error_set(err, rc, "result = %s: %s", par->result, msg);
	p->own_time = par->time && strcmp(par->time, "wall") != 0;
	if (p->own_time && (rc = mmp_capture_compile(&p->time, par->time, msg, sizeof(msg))))
		return mmp_error_set(err, rc, "time = %s: %s", par->time, msg);
	return 0;
}

/* The preload library found (1, its path in preload_lib) or not (0), and
 * why it cannot change anything when that is known before it runs. */
static int find_preload(struct mmp_process_run *p)
{
	int found = mmp_preload_find(p->preload_lib, sizeof(p->preload_lib)) == 0;
	if (!found)
		snprintf(p->preload_why, sizeof(p->preload_why), "%s", p->preload_lib);
	else
		mmp_preload_why_not(p->exe, p->preload_why, sizeof(p->preload_why));
	return found;
}

/* prefault, touch, huge, bulk: the preload library's mode, where it is,
 * and why it cannot change anything when that is known before it runs. */
static void preload_init(struct mmp_process_run *p)
{
	const struct mmp_params *par = &p->item->run->p;
	if (!(par->prefault || par->touch || par->hugepages || par->bulkreads))
		return;
	snprintf(p->preload_mode, sizeof(p->preload_mode), "%s%s%s%s",
		 par->prefault ? "prefault," : "", par->touch ? "touch," : "",
		 par->hugepages ? "huge," : "", par->bulkreads ? "bulk," : "");
	p->preload_mode[strlen(p->preload_mode) - 1] = '\0'; /* the last comma */
	/* A library not there is a rung that changes nothing, said so,
	 * not a run that fails: the program itself still runs. */
	p->preload_found = find_preload(p);
}

/* The library for a survey of a job without a preload mode of its own
 * (mmp_runner_survey), looked for the first time one is asked. */
static int survey_lib(struct mmp_process_run *p)
{
	if (p->preload_mode[0])
		return 0; /* a rung's own mode: it surveys nothing */
	if (!p->survey_found)
		p->survey_found = find_preload(p) ? 1 : -1;
	return p->survey_found > 0;
}

/* The ring its log's last half passes through, and its environment when
 * the job changes it (env =, jitnames). */
static int output_and_env(struct mmp_process_run *p, struct mmp_error *err)
{
	const struct mmp_params *par = &p->item->run->p;
	int rc;

	p->ring_len = (size_t)(par->log_max / 2);
	p->ring = p->ring_len ? malloc(p->ring_len) : NULL;
	if (p->ring_len && !p->ring)
		return mmp_error_set(err, -ENOMEM, "out of memory for log_max = %" PRIu64 " bytes",
				     par->log_max);
	if (!par->env && par->jitnames != MMP_JITNAMES_YES)
		return 0;
	rc = mmp_child_env_init(&p->env, NULL);
	if (!rc)
		rc = mmp_child_env_apply(&p->env, par->env);
	if (rc)
		return mmp_error_set(err, rc,
				     rc == -ENOMEM ? "out of memory" : "env = %s: not VAR=VALUE, ...",
				     par->env);
	p->own_env = 1;
	if (par->jitnames == MMP_JITNAMES_YES) {
		int set = mmp_child_env_jitnames(&p->env, par->env);
		if (set < 0)
			return mmp_error_set(err, -ENOMEM, "out of memory");
		p->jit = (unsigned)set;
	}
	return 0;
}

static void process_close(void *state);

static int process_open(void **out, struct mmp_engine_setup *setup, struct mmp_error *err)
{
	const struct mmp_runner_item *item = setup->item;
	const struct mmp_params *par = &item->run->p;
	int rc;

	*out = NULL;
	if (!par->command)
		return mmp_error_set(err, -EINVAL, "probe %s needs command = ...", par->probe->name);
	if (!item->logs)
		return mmp_error_set(err, -EINVAL, "no directory for the program's logs");
	struct mmp_process_run *p = calloc(1, sizeof(*p));
	if (!p)
		return mmp_error_set(err, -ENOMEM, "out of memory");
	p->item = item;
	p->open_error = setup->open_error;
	p->pressure_fd = -1;
	/* A program that reads no data file (neither file nor size): no
	 * bytes, no reference, figures per run. */
	p->end = item->end ? item->end : item->data ? item->data->size : 0;
	p->expected = item->data ? expected_result(item) : 0;
	distinct_pus(p, item->plan);
	rc = mmp_membind_process_policy(&par->membind, par->bind, setup->topo, &p->mpol,
					p->nodemask, MMP_NODEMASK_BITS, err);
	for (unsigned t = 0; !rc && t < item->plan->nthreads; t++) {
		setup->places[t].pu_planned = item->plan->pu[t];
		setup->places[t].pu_seen = -1; /* its threads go where the kernel puts them */
		snprintf(setup->places[t].allowed, sizeof(setup->places[t].allowed), "%s",
			 p->pulist);
	}
	if (!rc)
		rc = command_init(p, err);
	if (!rc) {
		preload_init(p);
		rc = output_and_env(p, err);
	}
	if (rc) {
		process_close(p);
		return rc;
	}
	p->pressure_fd = mmp_pressure_open();
	/* (a tracepoint not held costs a wait after each repetition, no figure) */
	if (mmp_counters_hold_tracepoints(&p->held, item->events) < 0) {
		process_close(p);
		return mmp_error_set(err, -ENOMEM, "out of memory");
	}
	*out = p;
	return 0;
}

static void process_close(void *state)
{
	struct mmp_process_run *p = state;
	if (!p)
		return;
	mmp_command_free(&p->argv);
	mmp_capture_free(&p->result);
	mmp_capture_free(&p->time);
	if (p->pressure_fd >= 0)
		close(p->pressure_fd);
	mmp_counters_release_tracepoints(&p->held);
	mmp_samples_free(&p->samples);
	free(p->ring);
	mmp_child_env_free(&p->env);
	free(p);
}

/* The perf maps jitnames asked the program's runtime for, once read (a
 * .NET process writes /tmp/perf-PID.map and may write perfinfo-PID.map;
 * a seed_real run starts a thousand processes).  Which runtime wrote a
 * map is known by the library the process mapped; a map the job's own
 * env = asked for, or another runtime's, is the user's, and stays. */
static void forget_perf_maps(const struct mmp_process_run *p, const struct mmp_samples *s)
{
	unsigned rt = s ? mmp_samples_runtimes(s) : 0;
	int dotnet = (rt & MMP_RUNTIME_DOTNET) && (p->jit & MMP_JIT_DOTNET);
	int java = (rt & MMP_RUNTIME_JAVA) && (p->jit & (MMP_JIT_JAVA_EXIT | MMP_JIT_JAVA_AGENT));
	char path[64];
	if (!dotnet && !java)
		return;
	for (size_t i = 0; i < s->nperf_map; i++)
		unlink(s->perf_map[i].path);
	if (dotnet) {
		snprintf(path, sizeof(path), "/tmp/perfinfo-%d.map", (int)s->pid);
		unlink(path);
	}
}

/* The result and the time from what the program printed (the last line
 * each regex matched, read as the output streamed). */
static int read_figures(struct mmp_process_run *p, const struct mmp_output_log *out,
			struct mmp_rep *rep, struct mmp_error *err)
{
	const struct mmp_params *par = &p->item->run->p;
	const char *cap;
	char msg[256];

	rep->result = 0;
	rep->result_ok = 1;
	p->ext.result_text[0] = '\0';
	p->ext.result_unchecked = !p->check_result;
	if (p->check_result) {
		if (!(cap = mmp_output_log_found(out, 0)))
			return mmp_error_set(err, -ENODATA,
					     "no line of its output matches result = %s (log: %s)",
					     par->result, p->log);
		const char *why = NULL;
		if (mmp_capture_count(cap, &rep->result, &why)) {
			/* Not a count is a wrong answer, shown as printed. */
			rep->result = 0;
			rep->result_ok = 0;
			snprintf(p->ext.result_text, sizeof(p->ext.result_text), "'%.100s', which %s", cap,
				 why);
		} else {
			rep->result_ok = rep->result == p->expected;
		}
	}
	rep->elapsed_ns = p->ext.wall_ns;
	if (p->own_time) {
		uint64_t ns;
		if (!(cap = mmp_output_log_found(out, 1)))
			return mmp_error_set(err, -ENODATA,
					     "no line of its output matches time = %s (log: %s)",
					     par->time, p->log);
		if (mmp_capture_duration(cap, &ns, msg, sizeof(msg)))
			return mmp_error_set(err, -ENODATA, "time = %s: %s (log: %s)", par->time,
					     msg, p->log);
		/* Its own clock runs inside its life: a longer time is a unit
		 * read wrong; a zero is below its clock's resolution. */
		if (ns > p->ext.wall_ns + 1000000)
			return mmp_error_set(err, -ERANGE,
					     "time = %s read %.6f s, longer than the %.6f s the "
					     "process lived (another unit?) (log: %s)",
					     par->time, ns / 1e9, p->ext.wall_ns / 1e9, p->log);
		if (ns == 0)
			return mmp_error_set(err, -ERANGE,
					     "time = %s read 0: below the program's clock resolution "
					     "(use time = wall or more data) (log: %s)",
					     par->time, p->log);
		rep->elapsed_ns = ns;
	}
	return 0;
}

static void fill_counts(struct mmp_process_run *p, struct mmp_counters *ctr, int counted,
			struct mmp_rep *rep)
{
	const struct mmp_event_set *events = p->item->events;
	const size_t nev = events ? events->n : 0;
	const unsigned n = p->item->plan->nthreads;
	for (size_t i = 0; counted && i < nev; i++)
		if (!p->open_error[i])
			p->open_error[i] = ctr->error[i];
	if (counted)
		mmp_counters_read(ctr, rep->counts);
	/* Counts are the process's: no thread of it is mmprof's to name. */
	for (size_t i = 0; i < nev * n; i++) {
		memset(&rep->thread_counts[i], 0, sizeof(rep->thread_counts[i]));
		rep->thread_counts[i].state = MMP_COUNT_NOT_COUNTED;
	}
}

/* The program's CPU time: task-clock summed over its threads when it was
 * counted (what the one-PU control compares), else rusage's. */
static uint64_t task_clock(const struct mmp_process_run *p, int counted, const struct mmp_rep *rep,
			   uint64_t rusage_ns)
{
	const struct mmp_event_set *events = p->item->events;
	for (size_t i = 0; counted && events && i < events->n; i++)
		if (events->ev[i].role == MMP_ROLE_TASK_CLOCK && mmp_count_valid(&rep->counts[i]))
			return (uint64_t)rep->counts[i].value;
	return rusage_ns;
}

static int open_log(struct mmp_process_run *p, struct mmp_error *err)
{
	const struct mmp_run *run = p->item->run;
	snprintf(p->log, sizeof(p->log), "%s/run%zu-%s.%u.log", p->item->logs, run->index + 1,
		 run->job->name, p->seq++);
	int fd = open(p->log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return mmp_error_errno(err, -errno, "creating the log %s", p->log);
	dprintf(fd, "# mmprof: run %zu [%s] process %u on PUs %s: %s\n", run->index + 1,
		run->job->name, p->seq - 1, p->pulist, p->line);
	if (p->own_env) {
		char set[8192];
		dprintf(fd, "# mmprof: with %s\n",
			mmp_child_env_changes(&p->env, NULL, set, sizeof(set)));
	}
	return fd;
}

/* Its PUs over a repetition: idle and interrupt time (/proc/stat) before
 * and after, and the tasks that ran there between (pu_tasks.h), drained
 * at each tick with the PU watch's sample. */
struct pus_time {
	uint64_t idle[2], irq[2];
	int have_idle, have_irq;
	struct mmp_pu_watch *pw;
	struct mmp_pu_tasks *tasks;
};

static void on_tick(void *ctx)
{
	struct pus_time *t = ctx;
	mmp_pu_watch_sample(t->pw);
	mmp_pu_tasks_drain(t->tasks);
}

static void pus_before(struct mmp_process_run *p, struct pus_time *t)
{
	p->tasks_why[0] = '\0';
	if (mmp_pu_tasks_open(&t->tasks, p->pus, p->npus, p->tasks_why, sizeof(p->tasks_why)))
		t->tasks = NULL;
	t->have_idle = mmp_cpu_idle_ns(p->pus, p->npus, &t->idle[0]) == 0;
	t->have_irq = mmp_cpu_irq_ns(p->pus, p->npus, &t->irq[0]) == 0;
}

static void pus_after(struct mmp_process_run *p, struct pus_time *t)
{
	t->have_idle = t->have_idle && mmp_cpu_idle_ns(p->pus, p->npus, &t->idle[1]) == 0 &&
		       t->idle[1] >= t->idle[0];
	t->have_irq = t->have_irq && mmp_cpu_irq_ns(p->pus, p->npus, &t->irq[1]) == 0 &&
		      t->irq[1] >= t->irq[0];
}

/* Other tasks on its PUs while it ran, the kernel's work for it told
 * apart (disturbance.h). */
static void judge_pus(struct mmp_process_run *p, const struct mmp_exec_child *child,
		      struct mmp_rep *rep, uint64_t cpu_ns, double pressure, struct pus_time *t)
{
	struct mmp_pu_tasks_seen seen;
	int have_seen = t->tasks &&
			mmp_pu_tasks_finish(t->tasks, child->pid, child->t_exit, &seen) == 0;
	if (t->tasks && !have_seen)
		snprintf(p->tasks_why, sizeof(p->tasks_why),
			 "other tasks on its PUs not told apart: out of memory for their switches");
	struct mmp_process_pus in = {
		.wall_ns = p->ext.wall_ns, .npus = p->npus, .cpu_ns = cpu_ns,
		.idle_ns = t->have_idle ? t->idle[1] - t->idle[0] : UINT64_MAX,
		.irq_ns = t->have_irq ? t->irq[1] - t->irq[0] : UINT64_MAX,
		.seen = have_seen ? &seen : NULL, .why_not = p->tasks_why,
	};
	mmp_disturbance_judge_process(&in, (uint64_t)child->ru.ru_nivcsw, pressure, &rep->dist);
}

/* One repetition's process and what watches it, from its start to its
 * end (end_rep). */
struct proc_rep {
	int fd; /* its log */
	char **env; /* with the preload library's variables; NULL: p->env's or mmprof's */
	char report[LOG_PATH_MAX + 16]; /* the preload library's report, beside the log */
	struct mmp_output_log out;
	struct mmp_exec_watch watch; /* the child's, while it lives */
	struct mmp_exec_child child;
	int started;
	struct mmp_pu_watch pw;
	struct mmp_counters ctr;
	int counted;
	struct mmp_sampler *sampler;
	int finished; /* the samples read into p->samples */
	struct pus_time pt;
	int64_t psi0, psi1, steal0;
	unsigned stops;
};

/* The log, the extension emptied, the environment the preload library
 * needs, and the child started, held before its exec. */
static int start_rep(struct mmp_process_run *p, struct proc_rep *r, struct mmp_rep *rep,
		     struct mmp_error *err)
{
	r->fd = open_log(p, err);
	r->pt.pw = &r->pw;
	if (r->fd < 0)
		return r->fd;
	p->ext.log = p->log;
	rep->process = &p->ext;
	p->ext.note[0] = '\0';
	p->ext.escaped = 0;
	p->ext.pus_ran[0] = '\0';
	p->ext.samples = NULL;
	p->ext.samples_why = NULL;
	mmp_samples_free(&p->samples);
	const struct mmp_capture *caps[MMP_OUTPUT_CAPTURES] = {
		p->check_result ? &p->result : NULL, p->own_time ? &p->time : NULL
	};
	mmp_output_log_init(&r->out, r->fd, caps, p->item->run->p.log_max, p->ring, p->ring_len);
	r->watch = (struct mmp_exec_watch){ .output = mmp_output_log_take, .ctx = &r->out,
					    .tick = on_tick, .tick_ctx = &r->pt,
					    .tick_ms = MMP_PU_WATCH_MS };
	struct mmp_exec_spec spec = {
		.path = p->exe, .argv = p->argv.v, .pus = p->pus, .npus = p->npus,
		.watch = &r->watch, .mpol = p->mpol, .nodemask = p->nodemask,
	};
	p->ext.preload_asked = p->preload_mode[0] != '\0';
	p->ext.surveyed = rep->survey && survey_lib(p);
	p->ext.survey_why = rep->survey && !p->ext.surveyed ? p->preload_why : NULL;
	memset(&p->ext.preload, 0, sizeof(p->ext.preload));
	p->ext.preload_note = p->preload_why[0] ? p->preload_why : NULL;
	if ((p->ext.preload_asked && p->preload_found) || p->ext.surveyed) {
		/* Beside the log: what the library changed in this process. */
		snprintf(r->report, sizeof(r->report), "%s.preload", p->log);
		unlink(r->report);
		r->env = mmp_preload_env(p->own_env ? p->env.v : NULL, p->preload_lib,
					 p->ext.surveyed ? "survey" : p->preload_mode, r->report);
		if (!r->env)
			return mmp_error_set(err, -ENOMEM, "out of memory");
		spec.envp = r->env;
	} else if (p->own_env) {
		spec.envp = p->env.v;
	}
	int rc = mmp_exec_child_start(&r->child, &spec, err);
	r->started = rc == 0;
	return rc;
}

/* What watches the held child: where its threads run, its counters
 * (inherited by every thread it starts), its switches and samples. */
static int watch_child(struct mmp_process_run *p, struct proc_rep *r, struct mmp_error *err)
{
	const struct mmp_event_set *events = p->item->events;
	const struct mmp_params *par = &p->item->run->p;

	mmp_pu_watch_start(&r->pw, r->child.pid, p->pus, p->npus);
	if (events && events->n) {
		int rc = mmp_counters_open_child(&r->ctr, events, r->child.pid);
		if (rc)
			return mmp_error_set(err, rc, "out of memory for counters");
		r->counted = 1;
	}
	/* Refused (perf_event_paranoid) or not supported: the run is
	 * measured all the same, without a profile, and says why.  With
	 * profile = off the sampler still records the threads' switches:
	 * whether they ran at the same time is judged. */
	unsigned hz = par->profile;
	struct mmp_sampling_opts so = {
		.hz = hz, .fault_period = hz && par->profile_faults ? MMP_SAMPLING_FAULT_PERIOD : 0
	};
	if (mmp_sampler_open_child(&r->sampler, r->child.pid, &so, p->samples_why,
				   sizeof(p->samples_why)) && hz)
		p->ext.samples_why = p->samples_why;
	return 0;
}

/* What mmprof did about the process, said in its log and its row: the
 * daemons it left, ended; a log that could not be written whole. */
static void note_aftermath(struct mmp_process_run *p, struct proc_rep *r, int log_rc)
{
	char *note = p->ext.note;
	const size_t len = sizeof(p->ext.note);
	if (r->child.nleft) {
		snprintf(note, len,
			 "%.100s left %u process(es) running outside its process group (a "
			 "daemon: setsid): %s%s; mmprof ended them (log: %.400s)",
			 p->argv.v[0], r->child.nleft, r->child.left,
			 r->child.nleft > 4 ? ", ..." : "", p->log);
		dprintf(r->fd, "\n# mmprof: %s\n", note);
	}
	if (log_rc) {
		/* The figures were read from the stream, not from the file: the
		 * repetition stands, its log does not. */
		size_t used = strlen(note);
		snprintf(note + used, len - used,
			 "%sthe log %.400s is incomplete: %s (the result and time were read as "
			 "the output came)",
			 used ? "; " : "", p->log, strerror(-log_rc));
	}
}

/* A process that did not run to a clean exit: why, with its log. */
static int child_failed(struct mmp_process_run *p, struct proc_rep *r, int rc,
			struct mmp_error *err)
{
	const int sig = r->child.stop_signal;
	char how[96];
	if (rc == -ETIMEDOUT)
		return mmp_error_set(err, -ETIMEDOUT, "timed out after %g s, stopped (log: %s)",
				     p->item->run->p.timeout, p->log);
	/* Waiting for the timeout (600 s by default) would end it as "timed
	 * out" and never say it stopped. */
	if (rc == -ECANCELED)
		return mmp_error_set(err, -ECANCELED,
				     "%s stopped itself (SIG%s) and nothing would continue it: "
				     "mmprof ended it, its time is not one (log: %s)",
				     p->argv.v[0], sigabbrev_np(sig) ? sigabbrev_np(sig) : "?",
				     p->log);
	if (rc == -EINTR)
		return mmp_error_set(err, -EINTR, "stopped (log: %s)", p->log);
	if (!WIFEXITED(r->child.status) || WEXITSTATUS(r->child.status) != 0)
		return mmp_error_set(err, -ECHILD, "%s %s (log: %s)", p->argv.v[0],
				     mmp_exec_child_describe(r->child.status, how, sizeof(how)),
				     p->log);
	return 0;
}

/* The child released, waited for with the timeout while its output
 * streams into the log, its PUs' time taken before and after. */
static int run_child(struct mmp_process_run *p, struct proc_rep *r, struct mmp_error *err)
{
	pus_before(p, &r->pt);
	r->psi0 = mmp_pressure_read(p->pressure_fd);
	r->stops = mmp_disturbance_stops();
	r->steal0 = mmp_steal_ns(p->pus, p->npus);
	int rc = mmp_exec_child_go(&r->child, p->exe, err);
	if (rc)
		return rc;
	if (r->pt.tasks)
		mmp_pu_tasks_start(r->pt.tasks, r->child.t_exec);
	if (r->sampler && mmp_sampler_start(r->sampler)) {
		snprintf(p->samples_why, sizeof(p->samples_why),
			 "no profile: the thread that reads the samples could not start");
		p->ext.samples_why = p->samples_why;
		mmp_sampler_close(r->sampler);
		r->sampler = NULL;
	}
	rc = mmp_exec_child_wait(&r->child, p->item->run->p.timeout, p->item->stop);
	note_aftermath(p, r, mmp_output_log_finish(&r->out));
	r->psi1 = mmp_pressure_read(p->pressure_fd);
	pus_after(p, &r->pt);
	return child_failed(p, r, rc, err);
}

/* Its samples read: the profile, and whether its threads overlapped
 * (0: *conc measured). */
static int take_samples(struct mmp_process_run *p, struct proc_rep *r,
			struct mmp_concurrency *conc)
{
	int measured = -1;
	if (!r->sampler)
		return measured;
	if (mmp_sampler_finish(r->sampler, &p->samples) == 0) {
		r->finished = 1;
		measured = mmp_concurrency_measure(p->samples.sw, p->samples.nsw, p->npus, conc);
		p->samples.jit = p->jit;
		p->ext.samples = p->item->run->p.profile ? &p->samples : NULL;
	} else {
		snprintf(p->samples_why, sizeof(p->samples_why),
			 "no profile: out of memory for its samples");
		p->ext.samples_why = p->samples_why;
	}
	return measured;
}

/* The repetition's figures from the exited process: result and time,
 * counts, CPU time, what the preload library did; then how it was
 * disturbed, and last whether it left its PUs. */
static int finish_rep(struct mmp_process_run *p, struct proc_rep *r, struct mmp_rep *rep,
		      struct mmp_error *err)
{
	struct mmp_concurrency conc;
	struct mmp_pu_escape esc;

	p->ext.wall_ns = r->child.t_exit - r->child.t_exec;
	rep->bytes = p->end;
	rep->probe_rc = 0;
	int rc = read_figures(p, &r->out, rep, err);
	if (rc)
		return rc;
	fill_counts(p, &r->ctr, r->counted, rep);
	int have_conc = take_samples(p, r, &conc) == 0;
	for (unsigned t = 0; t < p->item->plan->nthreads; t++)
		rep->thread_ns[t] = rep->elapsed_ns; /* the process is the unit */
	rep->thread_min_ns = rep->thread_max_ns = rep->elapsed_ns;
	const struct rusage *ru = &r->child.ru;
	uint64_t cpu_ns = (uint64_t)(ru->ru_utime.tv_sec + ru->ru_stime.tv_sec) * 1000000000u +
			  (uint64_t)(ru->ru_utime.tv_usec + ru->ru_stime.tv_usec) * 1000u;
	p->ext.cpu_ns = task_clock(p, r->counted, rep, cpu_ns);
	p->ext.threads_seen = have_conc ? conc.threads : 0;
	if (r->env && (rc = mmp_preload_read(r->report, &p->ext.preload)))
		return mmp_error_errno(err, rc, "reading %s", r->report);
	const uint64_t wall = p->ext.wall_ns;
	double pressure = r->psi0 >= 0 && r->psi1 >= r->psi0 && wall
				  ? (double)(r->psi1 - r->psi0) * 1000 / (double)wall
				  : -1;
	judge_pus(p, &r->child, rep, cpu_ns, pressure, &r->pt);
	mmp_disturbance_judge_overlap(have_conc ? &conc : NULL, &rep->dist);
	mmp_disturbance_check_stops(r->stops, &rep->dist);
	mmp_disturbance_check_steal(r->steal0, mmp_steal_ns(p->pus, p->npus), wall, p->npus,
				    &rep->dist);
	/* Last: a program that left its PUs did not run the planned run,
	 * whatever else was in its way. */
	mmp_pu_watch_judge(&r->pw, p->ext.cpu_ns, wall, &esc);
	p->ext.escaped = esc.escaped;
	snprintf(p->ext.pus_ran, sizeof(p->ext.pus_ran), "%s", esc.seen);
	if (esc.escaped) {
		rep->dist.disturbed = 1;
		snprintf(rep->dist.why, sizeof(rep->dist.why), "%s", esc.why);
	}
	return 0;
}

static void end_rep(struct mmp_process_run *p, struct proc_rep *r)
{
	if (r->started) {
		if (r->finished) {
			forget_perf_maps(p, &p->samples);
		} else if (r->sampler && p->jit) {
			/* A process that failed or was stopped wrote maps too. */
			struct mmp_samples left;
			if (mmp_sampler_finish(r->sampler, &left) == 0)
				forget_perf_maps(p, &left);
			mmp_samples_free(&left);
		}
		mmp_sampler_close(r->sampler);
		mmp_pu_tasks_close(r->pt.tasks);
		if (r->counted)
			mmp_counters_close(&r->ctr);
		mmp_exec_child_close(&r->child);
	}
	if (r->fd >= 0)
		close(r->fd);
	mmp_preload_env_free(r->env);
}

static int process_rep(void *state, struct mmp_rep *rep, struct mmp_error *err)
{
	struct mmp_process_run *p = state;
	struct proc_rep r = { .fd = -1 };

	int rc = start_rep(p, &r, rep, err);
	if (!rc)
		rc = watch_child(p, &r, err);
	if (!rc)
		rc = run_child(p, &r, err);
	if (!rc)
		rc = finish_rep(p, &r, rep, err);
	end_rep(p, &r);
	return rc;
}

const struct mmp_engine mmp_process_engine = {
	.name = "process",
	.open = process_open,
	.rep = process_rep,
	.close = process_close,
};
