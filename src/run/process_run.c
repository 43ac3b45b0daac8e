/* The runner's path for programs (see process_run.h). */
#include "mmprof/process_run.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mmprof/capture.h"
#include "mmprof/child_env.h"
#include "mmprof/command.h"
#include "mmprof/concurrency.h"
#include "mmprof/exec_child.h"
#include "mmprof/memory.h"
#include "mmprof/output_log.h"
#include "mmprof/hypervisor.h"
#include "mmprof/preload.h"
#include "mmprof/probe.h"
#include "mmprof/pu_tasks.h"
#include "mmprof/pu_watch.h"
#include "mmprof/sampling.h"

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
	char log[4096];
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
	/* The last repetition's samples (rep->samples points here), and why
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

int mmp_process_run_open(struct mmp_process_run **out, const struct mmp_runner_item *item,
			 const struct mmp_topology *topo, struct mmp_thread_place *places,
			 int *open_error, struct mmp_error *err)
{
	const struct mmp_run *run = item->run;
	const struct mmp_params *par = &run->p;
	char msg[512];
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
	p->open_error = open_error;
	p->pressure_fd = -1;
	/* A program that reads no data file (neither file nor size): no
	 * bytes, no reference, figures per run. */
	p->end = item->end ? item->end : item->data ? item->data->size : 0;
	p->expected = item->data ? expected_result(item) : 0;
	distinct_pus(p, item->plan);
	rc = mmp_membind_process_policy(&par->membind, par->bind, topo, &p->mpol, p->nodemask,
					MMP_NODEMASK_BITS, err);
	if (rc)
		goto fail;
	for (unsigned t = 0; t < item->plan->nthreads; t++) {
		places[t].pu_planned = item->plan->pu[t];
		places[t].pu_seen = -1; /* the program's threads go where the kernel puts them */
		snprintf(places[t].allowed, sizeof(places[t].allowed), "%s", p->pulist);
	}
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
	if (rc) {
		rc = mmp_error_set(err, rc, "command = %s: %s", par->command, msg);
		goto fail;
	}
	if (mmp_command_quote(p->argv.v, p->argv.n, p->line, sizeof(p->line)))
		snprintf(p->line, sizeof(p->line), "%s ...", p->argv.v[0]);
	rc = mmp_exec_child_find(p->argv.v[0], p->exe, sizeof(p->exe), err);
	if (rc)
		goto fail;
	p->check_result = par->result != NULL;
	if (p->check_result && (rc = mmp_capture_compile(&p->result, par->result, msg, sizeof(msg)))) {
		rc = mmp_error_set(err, rc, "result = %s: %s", par->result, msg);
		goto fail;
	}
	p->own_time = par->time && strcmp(par->time, "wall") != 0;
	if (p->own_time && (rc = mmp_capture_compile(&p->time, par->time, msg, sizeof(msg)))) {
		rc = mmp_error_set(err, rc, "time = %s: %s", par->time, msg);
		goto fail;
	}
	if (par->prefault || par->touch || par->hugepages || par->bulkreads) {
		snprintf(p->preload_mode, sizeof(p->preload_mode), "%s%s%s%s",
			 par->prefault ? "prefault," : "", par->touch ? "touch," : "",
			 par->hugepages ? "huge," : "", par->bulkreads ? "bulk," : "");
		p->preload_mode[strlen(p->preload_mode) - 1] = '\0'; /* the last comma */
		/* A library not there is a rung that changes nothing, said so,
		 * not a run that fails: the program itself still runs. */
		p->preload_found = mmp_preload_find(p->preload_lib, sizeof(p->preload_lib)) == 0;
		if (!p->preload_found)
			snprintf(p->preload_why, sizeof(p->preload_why), "%s", p->preload_lib);
		else
			mmp_preload_why_not(p->exe, p->preload_why, sizeof(p->preload_why));
	}
	p->ring_len = (size_t)(par->log_max / 2);
	p->ring = p->ring_len ? malloc(p->ring_len) : NULL;
	if (p->ring_len && !p->ring) {
		rc = mmp_error_set(err, -ENOMEM, "out of memory for log_max = %" PRIu64 " bytes",
				   par->log_max);
		goto fail;
	}
	if (par->env || par->jitnames == MMP_JITNAMES_YES) {
		rc = mmp_child_env_init(&p->env, NULL);
		if (!rc)
			rc = mmp_child_env_apply(&p->env, par->env);
		if (rc) {
			rc = mmp_error_set(err, rc, rc == -ENOMEM ? "out of memory" : "env = %s: not VAR=VALUE, ...",
					   par->env);
			goto fail;
		}
		p->own_env = 1;
		if (par->jitnames == MMP_JITNAMES_YES) {
			int set = mmp_child_env_jitnames(&p->env, par->env);
			if (set < 0) {
				rc = mmp_error_set(err, -ENOMEM, "out of memory");
				goto fail;
			}
			p->jit = (unsigned)set;
		}
	}
	p->pressure_fd = mmp_pressure_open();
	*out = p;
	return 0;
fail:
	mmp_process_run_close(p);
	return rc;
}

void mmp_process_run_close(struct mmp_process_run *p)
{
	if (!p)
		return;
	mmp_command_free(&p->argv);
	mmp_capture_free(&p->result);
	mmp_capture_free(&p->time);
	if (p->pressure_fd >= 0)
		close(p->pressure_fd);
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
	rep->result_text[0] = '\0';
	rep->result_unchecked = !p->check_result;
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
			snprintf(rep->result_text, sizeof(rep->result_text), "'%.100s', which %s", cap,
				 why);
		} else {
			rep->result_ok = rep->result == p->expected;
		}
	}
	rep->elapsed_ns = rep->wall_ns;
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
		if (ns > rep->wall_ns + 1000000)
			return mmp_error_set(err, -ERANGE,
					     "time = %s read %.6f s, longer than the %.6f s the "
					     "process lived (another unit?) (log: %s)",
					     par->time, ns / 1e9, rep->wall_ns / 1e9, p->log);
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
		.wall_ns = rep->wall_ns, .npus = p->npus, .cpu_ns = cpu_ns,
		.idle_ns = t->have_idle ? t->idle[1] - t->idle[0] : UINT64_MAX,
		.irq_ns = t->have_irq ? t->irq[1] - t->irq[0] : UINT64_MAX,
		.seen = have_seen ? &seen : NULL, .why_not = p->tasks_why,
	};
	mmp_disturbance_judge_process(&in, (uint64_t)child->ru.ru_nivcsw, pressure, &rep->dist);
}

int mmp_process_run_rep(struct mmp_process_run *p, struct mmp_rep *rep, struct mmp_error *err)
{
	const struct mmp_runner_item *item = p->item;
	const struct mmp_event_set *events = item->events;
	struct mmp_exec_child child;
	struct mmp_counters ctr;
	struct mmp_sampler *sampler = NULL;
	int counted = 0, finished = 0;
	struct pus_time pt = { 0 };
	char how[96];
	struct mmp_output_log out;
	struct mmp_pu_watch pw;
	struct mmp_pu_escape esc;
	int fd = open_log(p, err);
	pt.pw = &pw;

	if (fd < 0)
		return fd;
	rep->log = p->log;
	rep->note[0] = '\0';
	rep->escaped = 0;
	rep->pus_ran[0] = '\0';
	rep->samples = NULL;
	rep->samples_why = NULL;
	mmp_samples_free(&p->samples);
	const struct mmp_capture *caps[MMP_OUTPUT_CAPTURES] = {
		p->check_result ? &p->result : NULL, p->own_time ? &p->time : NULL
	};
	mmp_output_log_init(&out, fd, caps, item->run->p.log_max, p->ring, p->ring_len);
	const struct mmp_exec_watch watch = { .output = mmp_output_log_take, .ctx = &out,
					      .tick = on_tick, .tick_ctx = &pt,
					      .tick_ms = MMP_PU_WATCH_MS };
	struct mmp_exec_spec spec = {
		.path = p->exe, .argv = p->argv.v, .pus = p->pus, .npus = p->npus, .watch = &watch,
		.mpol = p->mpol, .nodemask = p->nodemask,
	};
	char report[sizeof(p->log) + 16];
	char **env = NULL;
	rep->preload_asked = p->preload_mode[0] != '\0';
	memset(&rep->preload, 0, sizeof(rep->preload));
	rep->preload_note = p->preload_why[0] ? p->preload_why : NULL;
	if (rep->preload_asked && p->preload_found) {
		/* Beside the log: what the library changed in this process. */
		snprintf(report, sizeof(report), "%s.preload", p->log);
		unlink(report);
		env = mmp_preload_env(p->own_env ? p->env.v : NULL, p->preload_lib,
				      p->preload_mode, report);
		if (!env) {
			close(fd);
			return mmp_error_set(err, -ENOMEM, "out of memory");
		}
		spec.envp = env;
	} else if (p->own_env) {
		spec.envp = p->env.v;
	}
	int rc = mmp_exec_child_start(&child, &spec, err);
	if (rc)
		goto out_fd;
	mmp_pu_watch_start(&pw, child.pid, p->pus, p->npus);
	if (events && events->n) {
		rc = mmp_counters_open_child(&ctr, events, child.pid);
		if (rc) {
			rc = mmp_error_set(err, rc, "out of memory for counters");
			goto out_child;
		}
		counted = 1;
	}
	{
		/* Refused (perf_event_paranoid) or not supported: the run is
		 * measured all the same, without a profile, and says why.
		 * With profile = off the sampler still records the threads'
		 * switches: whether they ran at the same time is judged. */
		unsigned hz = item->run->p.profile;
		struct mmp_sampling_opts so = { .hz = hz,
						.fault_period = hz && item->run->p.profile_faults
									? MMP_SAMPLING_FAULT_PERIOD
									: 0 };
		if (mmp_sampler_open_child(&sampler, child.pid, &so, p->samples_why,
					   sizeof(p->samples_why)) && hz)
			rep->samples_why = p->samples_why;
	}
	pus_before(p, &pt);
	int64_t psi0 = mmp_pressure_read(p->pressure_fd);
	unsigned stops = mmp_disturbance_stops();
	int64_t steal0 = mmp_steal_ns(p->pus, p->npus);
	rc = mmp_exec_child_go(&child, p->exe, err);
	if (rc)
		goto out_counters;
	if (pt.tasks)
		mmp_pu_tasks_start(pt.tasks, child.t_exec);
	if (sampler && mmp_sampler_start(sampler)) {
		snprintf(p->samples_why, sizeof(p->samples_why),
			 "no profile: the thread that reads the samples could not start");
		rep->samples_why = p->samples_why;
		mmp_sampler_close(sampler);
		sampler = NULL;
	}
	rc = mmp_exec_child_wait(&child, item->run->p.timeout, item->stop);
	int log_rc = mmp_output_log_finish(&out);
	if (child.nleft) {
		snprintf(rep->note, sizeof(rep->note),
			 "%.100s left %u process(es) running outside its process group (a "
			 "daemon: setsid): %s%s; mmprof ended them (log: %.400s)",
			 p->argv.v[0], child.nleft, child.left, child.nleft > 4 ? ", ..." : "",
			 p->log);
		dprintf(fd, "\n# mmprof: %s\n", rep->note);
	}
	if (log_rc) {
		/* The figures were read from the stream, not from the file: the
		 * repetition stands, its log does not. */
		size_t used = strlen(rep->note);
		snprintf(rep->note + used, sizeof(rep->note) - used,
			 "%sthe log %.400s is incomplete: %s (the result and time were read as "
			 "the output came)",
			 used ? "; " : "", p->log, strerror(-log_rc));
	}
	int64_t psi1 = mmp_pressure_read(p->pressure_fd);
	pus_after(p, &pt);
	if (rc == -ETIMEDOUT) {
		rc = mmp_error_set(err, -ETIMEDOUT, "timed out after %g s, stopped (log: %s)",
				   item->run->p.timeout, p->log);
		goto out_counters;
	}
	if (rc == -ECANCELED) {
		/* Waiting for the timeout (600 s by default) would end it as
		 * "timed out" and never say it stopped. */
		rc = mmp_error_set(err, -ECANCELED,
				   "%s stopped itself (SIG%s) and nothing would continue it: mmprof "
				   "ended it, its time is not one (log: %s)",
				   p->argv.v[0], sigabbrev_np(child.stop_signal) ?
				   sigabbrev_np(child.stop_signal) : "?", p->log);
		goto out_counters;
	}
	if (rc == -EINTR) {
		rc = mmp_error_set(err, -EINTR, "stopped (log: %s)", p->log);
		goto out_counters;
	}
	if (!WIFEXITED(child.status) || WEXITSTATUS(child.status) != 0) {
		rc = mmp_error_set(err, -ECHILD, "%s %s (log: %s)", p->argv.v[0],
				   mmp_exec_child_describe(child.status, how, sizeof(how)), p->log);
		goto out_counters;
	}
	rep->wall_ns = child.t_exit - child.t_exec;
	rep->bytes = p->end;
	rep->probe_rc = 0;
	rc = read_figures(p, &out, rep, err);
	if (rc)
		goto out_counters;
	fill_counts(p, &ctr, counted, rep);
	struct mmp_concurrency conc;
	int have_conc = 0;
	if (sampler) {
		if (mmp_sampler_finish(sampler, &p->samples) == 0) {
			finished = 1;
			have_conc = mmp_concurrency_measure(p->samples.sw, p->samples.nsw, p->npus,
							    &conc) == 0;
			p->samples.jit = p->jit;
			rep->samples = item->run->p.profile ? &p->samples : NULL;
		} else {
			snprintf(p->samples_why, sizeof(p->samples_why),
				 "no profile: out of memory for its samples");
			rep->samples_why = p->samples_why;
		}
	}
	for (unsigned t = 0; t < item->plan->nthreads; t++)
		rep->thread_ns[t] = rep->elapsed_ns; /* the process is the unit */
	rep->thread_min_ns = rep->thread_max_ns = rep->elapsed_ns;
	uint64_t cpu_ns = (uint64_t)(child.ru.ru_utime.tv_sec + child.ru.ru_stime.tv_sec) *
				  1000000000u +
			  (uint64_t)(child.ru.ru_utime.tv_usec + child.ru.ru_stime.tv_usec) * 1000u;
	rep->cpu_ns = task_clock(p, counted, rep, cpu_ns);
	rep->threads_seen = have_conc ? conc.threads : 0;
	if (env && (rc = mmp_preload_read(report, &rep->preload))) {
		rc = mmp_error_errno(err, rc, "reading %s", report);
		goto out_counters;
	}
	double pressure = psi0 >= 0 && psi1 >= psi0 && rep->wall_ns
				  ? (double)(psi1 - psi0) * 1000 / (double)rep->wall_ns
				  : -1;
	judge_pus(p, &child, rep, cpu_ns, pressure, &pt);
	mmp_disturbance_judge_overlap(have_conc ? &conc : NULL, &rep->dist);
	mmp_disturbance_check_stops(stops, &rep->dist);
	mmp_disturbance_check_steal(steal0, mmp_steal_ns(p->pus, p->npus), rep->wall_ns, p->npus,
				    &rep->dist);
	/* Last: a program that left its PUs did not run the planned run,
	 * whatever else was in its way. */
	mmp_pu_watch_judge(&pw, rep->cpu_ns, rep->wall_ns, &esc);
	rep->escaped = esc.escaped;
	snprintf(rep->pus_ran, sizeof(rep->pus_ran), "%s", esc.seen);
	if (esc.escaped) {
		rep->dist.disturbed = 1;
		snprintf(rep->dist.why, sizeof(rep->dist.why), "%s", esc.why);
	}
out_counters:
	if (finished) {
		forget_perf_maps(p, &p->samples);
	} else if (sampler && p->jit) {
		/* A process that failed or was stopped wrote maps too. */
		struct mmp_samples left;
		if (mmp_sampler_finish(sampler, &left) == 0)
			forget_perf_maps(p, &left);
		mmp_samples_free(&left);
	}
	mmp_sampler_close(sampler);
	mmp_pu_tasks_close(pt.tasks);
	if (counted)
		mmp_counters_close(&ctr);
out_child:
	mmp_exec_child_close(&child);
out_fd:
	close(fd);
	mmp_preload_env_free(env);
	return rc;
}
