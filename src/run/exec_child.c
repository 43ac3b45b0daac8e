/* The exec probe's child process (see exec_child.h). */
#include "run/exec_child.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/mempolicy.h>

#include "platform/memory.h"
#include "util/units.h"

/* The process group of the child running now, for a signal handler that
 * must not leave it behind (mmp_exec_child_kill_running): the one piece
 * of state a handler can reach. */
static volatile sig_atomic_t running_group;

extern char **environ;

void mmp_exec_child_kill_running(void)
{
	pid_t g = running_group;
	if (g > 0)
		kill(-g, SIGKILL);
}

int mmp_exec_child_find(const char *name, char *path, size_t len, struct mmp_error *err)
{
	struct stat st;
	if (strchr(name, '/')) {
		if (stat(name, &st) != 0)
			return mmp_error_errno(err, -errno, "cannot run %s", name);
		if (!S_ISREG(st.st_mode) || access(name, X_OK) != 0)
			return mmp_error_set(err, -EACCES, "cannot run %s: not an executable file",
					     name);
		snprintf(path, len, "%s", name);
		return 0;
	}
	const char *dirs = getenv("PATH");
	if (!dirs || !*dirs)
		dirs = "/usr/local/bin:/usr/bin:/bin";
	for (const char *p = dirs; *p;) {
		const char *colon = strchr(p, ':');
		size_t n = colon ? (size_t)(colon - p) : strlen(p);
		/* An empty entry is the current directory, as for execvp. */
		snprintf(path, len, "%.*s%s%s", (int)n, p, n ? "/" : "", name);
		if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0)
			return 0;
		p += n + (colon != NULL);
	}
	return mmp_error_set(err, -ENOENT, "cannot run %s: not found on PATH (%s)", name, dirs);
}

/* What the child reports on the status pipe before its exec: the time
 * it calls execv (STEP_TIME), or which step failed and the errno. */
enum { STEP_TIME, STEP_BIND, STEP_STDIO, STEP_EXEC, STEP_GROUP, STEP_MEMBIND };

struct status_msg {
	int step;
	int error;
	uint64_t ns; /* STEP_TIME: CLOCK_MONOTONIC, as mmp_now_ns */
};

static void report(int fd, int step, int error)
{
	struct status_msg msg = { step, error, 0 };
	ssize_t ignored = write(fd, &msg, sizeof(msg));
	(void)ignored;
}

/* In the child: only async-signal-safe calls until the exec (mmprof has
 * threads; another one may have held malloc's lock at the fork). */
static void child_main(const struct mmp_exec_spec *spec, int go_fd, int status_fd,
		       int null_fd, int out_fd, pid_t parent)
{
	cpu_set_t want, got;
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	sigset_t none;
	char byte;

	if (setpgid(0, 0) != 0) {
		report(status_fd, STEP_GROUP, errno);
		_exit(127);
	}
	/* mmprof killed (SIGKILL, a crash): the child goes too. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(127);
	/* The handlers are reset by the exec; an ignored signal or a blocked
	 * mask would survive it and change how the program behaves. */
	sigemptyset(&dfl.sa_mask);
	for (int s = 1; s < NSIG; s++)
		if (s != SIGKILL && s != SIGSTOP)
			sigaction(s, &dfl, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);

	/* Every thread the program starts inherits this mask. */
	CPU_ZERO(&want);
	for (unsigned i = 0; i < spec->npus; i++)
		CPU_SET(spec->pus[i], &want);
	if (sched_setaffinity(0, sizeof(want), &want) != 0) {
		report(status_fd, STEP_BIND, errno);
		_exit(127);
	}
	if (sched_getaffinity(0, sizeof(got), &got) != 0 || !CPU_EQUAL(&want, &got)) {
		report(status_fd, STEP_BIND, EXDEV);
		_exit(127);
	}
	/* A memory policy outlives execve and is inherited by every thread the
	 * program starts (set_mempolicy(2)). */
	if (spec->mpol >= 0 &&
	    syscall(SYS_set_mempolicy, spec->mpol,
		    spec->mpol == MPOL_LOCAL ? NULL : spec->nodemask,
		    spec->mpol == MPOL_LOCAL ? 0UL : (unsigned long)MMP_NODEMASK_BITS + 1) != 0) {
		report(status_fd, STEP_MEMBIND, errno);
		_exit(127);
	}
	if (dup2(null_fd, 0) < 0 || dup2(out_fd, 1) < 0 || dup2(out_fd, 2) < 0) {
		report(status_fd, STEP_STDIO, errno);
		_exit(127);
	}
	/* Nothing of mmprof's (data file, CSV, counters, pipes) reaches the
	 * program; status_fd closing at the exec is the parent's signal. */
	close_range(3, ~0u, CLOSE_RANGE_CLOEXEC);
	if (read(go_fd, &byte, 1) != 1)
		_exit(127); /* the parent gave up */
	/* The wall time starts here, taken by the child: the parent may not
	 * get a CPU until well after the exec (a loaded machine; the program
	 * holds the PUs it is bound to). */
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	struct status_msg at = { STEP_TIME, 0,
				 (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec };
	ssize_t ignored = write(status_fd, &at, sizeof(at));
	(void)ignored;
	execve(spec->path, spec->argv, spec->envp ? spec->envp : environ);
	report(status_fd, STEP_EXEC, errno);
	_exit(127);
}

static void close_pair(int fd[2])
{
	for (int i = 0; i < 2; i++)
		if (fd[i] >= 0)
			close(fd[i]);
}

int mmp_exec_child_start(struct mmp_exec_child *c, const struct mmp_exec_spec *spec,
			 struct mmp_error *err)
{
	int go[2] = { -1, -1 }, status[2] = { -1, -1 }, out[2] = { -1, -1 };
	int null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	pid_t parent = getpid();

	memset(c, 0, sizeof(*c));
	c->pidfd = c->go_fd = c->status_fd = c->out_fd = -1;
	c->watch = spec->watch;
	/* A process the program starts and leaves behind becomes our child
	 * when the program dies, so that reap() can wait for it. */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	if (null_fd < 0)
		return mmp_error_errno(err, -errno, "open /dev/null");
	if (pipe2(go, O_CLOEXEC) || pipe2(status, O_CLOEXEC) || pipe2(out, O_CLOEXEC)) {
		int rc = mmp_error_errno(err, -errno, "pipe");
		close(null_fd);
		close_pair(go);
		close_pair(status);
		close_pair(out);
		return rc;
	}
	/* Best effort: a smaller pipe only means more wake-ups. */
	(void)fcntl(out[0], F_SETPIPE_SZ, MMP_CHILD_PIPE_BYTES);
	c->t_fork = mmp_now_ns();
	pid_t pid = fork();
	if (pid == 0)
		child_main(spec, go[0], status[1], null_fd, out[1], parent);
	int fork_errno = errno;
	close(go[0]);
	close(status[1]);
	/* Ours closed, the pipe reads EOF once every process of the program
	 * that holds it (its children inherit it) is gone. */
	close(out[1]);
	close(null_fd);
	if (pid < 0) {
		close(go[1]);
		close(status[0]);
		close(out[0]);
		return mmp_error_errno(err, -fork_errno, "fork");
	}
	/* Both sides set the group, so it exists whichever runs first. */
	setpgid(pid, pid);
	c->pid = pid;
	running_group = pid;
	c->go_fd = go[1];
	c->status_fd = status[0];
	c->out_fd = out[0];
	(void)fcntl(c->out_fd, F_SETFL, O_NONBLOCK);
	c->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (c->pidfd < 0) {
		int rc = mmp_error_errno(err, -errno, "pidfd_open");
		mmp_exec_child_kill(c);
		return rc;
	}
	return 0;
}

/* What the program printed and mmprof has not read, up to max bytes (a
 * program that prints faster than this reads must not keep the reader
 * from its deadline): to the watch, or dropped.  1 at EOF (no process
 * of it holds the pipe any more), else 0. */
static int drain(struct mmp_exec_child *c, size_t max)
{
	char buf[65536];
	size_t done = 0;
	if (c->out_fd < 0)
		return 1;
	while (done < max) {
		ssize_t n = read(c->out_fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return 0; /* EAGAIN: nothing more for now */
		if (n == 0) {
			close(c->out_fd);
			c->out_fd = -1;
			return 1;
		}
		if (c->watch && c->watch->output)
			c->watch->output(c->watch->ctx, buf, (size_t)n);
		done += (size_t)n;
	}
	return 0;
}

/* mmprof's own children now: every thread's /proc children list (an
 * orphan goes to the subreaper's thread that the kernel picks).  At most
 * max pids; the count found. */
static size_t own_children(pid_t *pids, size_t max)
{
	char path[64], buf[4096];
	size_t n = 0;
	DIR *d = opendir("/proc/self/task");
	if (!d)
		return 0;
	for (struct dirent *e; (e = readdir(d)) && n < max;) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%.20s/children", e->d_name);
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		ssize_t got = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (got <= 0)
			continue;
		buf[got] = '\0';
		for (char *p = buf, *end; n < max; p = end) {
			long pid = strtol(p, &end, 10);
			if (end == p)
				break;
			pids[n++] = (pid_t)pid;
		}
	}
	closedir(d);
	return n;
}

/* Processes the program started in a session or group of their own (a
 * daemon: setsid, double fork) outlive its group's SIGKILL and became
 * mmprof's children (a subreaper): they were the run's, and end with it.
 * The first few are named in c->left. */
static void end_leftovers(struct mmp_exec_child *c)
{
	pid_t pids[64];
	uint64_t deadline = mmp_now_ns() + 1000000000u;
	for (size_t n; (n = own_children(pids, 64)) > 0 && mmp_now_ns() < deadline;) {
		for (size_t i = 0; i < n; i++) {
			char path[64], comm[32] = "?";
			snprintf(path, sizeof(path), "/proc/%d/comm", (int)pids[i]);
			FILE *f = fopen(path, "re");
			if (f) {
				if (fgets(comm, sizeof(comm), f))
					comm[strcspn(comm, "\n")] = '\0';
				fclose(f);
			}
			if (kill(pids[i], SIGKILL) != 0)
				continue;
			/* Each pid once: a zombie is listed until reaped. */
			if (waitpid(pids[i], NULL, 0) == pids[i] && c->nleft++ < 4) {
				size_t used = strlen(c->left);
				snprintf(c->left + used, sizeof(c->left) - used, "%s%d (%s)",
					 used ? ", " : "", (int)pids[i], comm);
			}
		}
	}
}

static void reap(struct mmp_exec_child *c)
{
	if (!c->pid || c->reaped)
		return;
	/* The child has exited (a zombie still holds its group's number):
	 * whatever else is left of its group goes now. */
	kill(-c->pid, SIGKILL);
	while (wait4(c->pid, &c->status, 0, &c->ru) < 0 && errno == EINTR)
		;
	c->reaped = 1;
	/* Its orphans were reparented to us (a subreaper, see start): reap
	 * them, or they stay zombies under an init that does not (this
	 * machine's).  SIGKILL is never refused, so they die within moments;
	 * a process stuck in the kernel is given up on after a second. */
	uint64_t deadline = mmp_now_ns() + 1000000000u;
	for (;;) {
		pid_t r = waitpid(-c->pid, NULL, WNOHANG);
		if (r > 0)
			continue;
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 || mmp_now_ns() > deadline)
			break; /* ECHILD: none left */
		kill(-c->pid, SIGKILL);
		struct timespec ts = { 0, 1000000 };
		nanosleep(&ts, NULL);
	}
	end_leftovers(c);
	running_group = 0;
	/* Every writer is gone: what is left in the pipe is the last of its
	 * output, read to EOF -- or for a second at most, should a process
	 * mmprof could not end still hold it. */
	deadline = mmp_now_ns() + 1000000000u;
	while (!drain(c, MMP_CHILD_PIPE_BYTES) && mmp_now_ns() < deadline) {
		struct pollfd p = { .fd = c->out_fd, .events = POLLIN };
		if (poll(&p, 1, 100) <= 0)
			break;
	}
}

/* The program is stopped (SIGSTOP, SIGTSTP, SIGTTIN, SIGTTOU): its signal,
 * or 0.  A pidfd does not wake on a stop, so it is asked each slice;
 * WNOWAIT leaves the state for the final wait4. */
static int stopped_by(const struct mmp_exec_child *c)
{
	siginfo_t info = { 0 };
	if (waitid(P_PID, (id_t)c->pid, &info, WSTOPPED | WNOHANG | WNOWAIT) == 0 &&
	    info.si_pid == c->pid && info.si_code == CLD_STOPPED)
		return info.si_status;
	return 0;
}

/* Wait for the pidfd, reading its output meanwhile (and with ticking,
 * calling the watch's tick): 1 exited, 0 timed out, 2 it stopped itself
 * (c->stop_signal), -EINTR stop. */
static int wait_exit(struct mmp_exec_child *c, double seconds, const volatile sig_atomic_t *stop,
		     int ticking)
{
	uint64_t deadline = mmp_now_ns() + (uint64_t)(seconds * 1e9);
	const struct mmp_exec_watch *w = c->watch;
	uint64_t next_tick = 0;
	ticking = ticking && w && w->tick && w->tick_ms;
	for (;;) {
		if (stop && *stop)
			return -EINTR;
		uint64_t now = mmp_now_ns();
		if (now >= deadline)
			return 0;
		if (ticking && now >= next_tick) {
			w->tick(w->tick_ctx);
			next_tick = mmp_now_ns() + (uint64_t)w->tick_ms * 1000000;
		}
		/* Slices of 250 ms: a Ctrl-C that lands just before poll() is
		 * seen within one, and the wakeups cost the program nothing. */
		uint64_t left_ms = (deadline - now) / 1000000 + 1;
		if (left_ms > 250)
			left_ms = 250;
		if (ticking && left_ms > (next_tick - now) / 1000000 + 1)
			left_ms = (next_tick - now) / 1000000 + 1;
		struct pollfd p[2] = { { .fd = c->pidfd, .events = POLLIN },
				       { .fd = c->out_fd, .events = POLLIN } };
		int r = poll(p, c->out_fd >= 0 ? 2 : 1, (int)left_ms);
		if (r > 0 && (p[0].revents & POLLIN))
			return 1;
		/* One read per wake-up: the exit is seen between two reads, so
		 * a program printing as it ends has its wall time late by the
		 * matching of one piece (64 KiB), not of the whole pipe. */
		if (r > 0 && c->out_fd >= 0 && p[1].revents)
			drain(c, 1);
		if (ticking && (c->stop_signal = stopped_by(c)) != 0)
			return 2;
	}
}

static void stop_group(struct mmp_exec_child *c)
{
	if (!c->pid || c->reaped)
		return;
	kill(-c->pid, SIGTERM);
	/* A stopped process acts on SIGTERM only once continued. */
	kill(-c->pid, SIGCONT);
	if (wait_exit(c, MMP_CHILD_GRACE, NULL, 0) != 1)
		kill(-c->pid, SIGKILL);
	reap(c);
}

int mmp_exec_child_go(struct mmp_exec_child *c, const char *path, struct mmp_error *err)
{
	static const char *const steps[] = { "", "binding it to its PUs", "redirecting its output",
					     "running", "making its process group",
					     "setting its memory policy (set_mempolicy)" };
	struct status_msg msg = { -1, 0, 0 };
	ssize_t n;

	if (write(c->go_fd, "x", 1) != 1) {
		int rc = mmp_error_errno(err, -errno, "releasing the child");
		mmp_exec_child_kill(c);
		return rc;
	}
	close(c->go_fd);
	c->go_fd = -1;
	/* Its time at execv, then EOF (the exec closed the pipe), or a
	 * failure. */
	for (;;) {
		do
			n = read(c->status_fd, &msg, sizeof(msg));
		while (n < 0 && errno == EINTR);
		if (n != (ssize_t)sizeof(msg) || msg.step != STEP_TIME)
			break;
		c->t_exec = msg.ns;
	}
	if (n == 0 && c->t_exec)
		return 0;
	mmp_exec_child_kill(c);
	if (n != (ssize_t)sizeof(msg))
		return mmp_error_set(err, -EIO, "the child of %s failed before its exec", path);
	int step = msg.step >= STEP_BIND && msg.step <= STEP_MEMBIND ? msg.step : STEP_EXEC;
	if (step == STEP_BIND && msg.error == EXDEV)
		return mmp_error_set(err, -EXDEV,
				     "binding %s to its PUs: the kernel narrowed the CPU mask (a "
				     "cpuset?)",
				     path);
	return mmp_error_errno(err, -msg.error, "%s %s", steps[step], path);
}

int mmp_exec_child_wait(struct mmp_exec_child *c, double timeout_s,
			const volatile sig_atomic_t *stop)
{
	int r = wait_exit(c, timeout_s, stop, 1);
	if (r == 1) {
		c->t_exit = mmp_now_ns();
		reap(c);
		return 0;
	}
	stop_group(c);
	return r == 0 ? -ETIMEDOUT : r == 2 ? -ECANCELED : -EINTR;
}

void mmp_exec_child_kill(struct mmp_exec_child *c)
{
	if (c->go_fd >= 0) {
		/* Still waiting for its byte: EOF makes it exit at once. */
		close(c->go_fd);
		c->go_fd = -1;
	}
	stop_group(c);
}

void mmp_exec_child_close(struct mmp_exec_child *c)
{
	mmp_exec_child_kill(c);
	if (c->pidfd >= 0)
		close(c->pidfd);
	if (c->status_fd >= 0)
		close(c->status_fd);
	if (c->out_fd >= 0)
		close(c->out_fd);
	c->pidfd = c->status_fd = c->out_fd = -1;
	c->pid = 0;
}

const char *mmp_exec_child_describe(int status, char *buf, size_t len)
{
	if (WIFEXITED(status))
		snprintf(buf, len, "exited with status %d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(buf, len, "killed by SIG%s%s", sigabbrev_np(WTERMSIG(status)) ?
			 sigabbrev_np(WTERMSIG(status)) : "?", WCOREDUMP(status) ? " (core dumped)" : "");
	else
		snprintf(buf, len, "ended with wait status 0x%x", (unsigned)status);
	return buf;
}
