/* One child process of the exec probe: started, bound, held before its
 * exec while its counters are opened, released, waited for with a
 * timeout, stopped with its whole process group.
 *
 *   start   fork; the child makes its own process group (so a stop reaches
 *           every process it starts, and the terminal's Ctrl-C reaches
 *           mmprof alone, which then stops it), asks to be killed if
 *           mmprof dies (PR_SET_PDEATHSIG), restores the default signal
 *           mask and dispositions, binds itself to the run's PUs with
 *           sched_setaffinity (checked: a cpuset may have narrowed the
 *           mask), takes /dev/null as stdin and one pipe as stdout and
 *           stderr, marks every other descriptor close-on-exec, and waits
 *           for one byte on a pipe
 *   go      the byte; then returns when the exec happened (a close-on-exec
 *           pipe reads EOF) or failed (the child writes the errno there);
 *           t_exec is the time the child took just before execv, sent on
 *           that pipe, so the wall time starts at the exec however late the
 *           parent gets a CPU to read it
 *   wait    until the process exits (a pidfd), the timeout passes, or
 *           *stop is set, reading what it prints meanwhile and handing it
 *           to the spec's watch (a program blocks on a full pipe: the
 *           reader must keep up for as long as anything of it may write,
 *           the grace after SIGTERM included, and the last bytes are read
 *           after the group is gone); t_exit is when the parent saw it exit (late by
 *           the parent's wake-up, a few microseconds on an idle CPU, more
 *           on a loaded one: docs/exec.md).  A stop or a timeout
 *           sends SIGTERM to the group, then SIGKILL after MMP_CHILD_GRACE
 *           seconds.  Whatever is left of the group when the child exits
 *           (a background process it started) is killed too, so no
 *           process outlives its repetition.  Then wait4 reaps it and
 *           gives its rusage; mmprof is a child subreaper, so the group's
 *           orphans are its children by then and are reaped as well (an
 *           init that does not reap, as in this project's VMs, would
 *           keep them as zombies).
 */
#ifndef MMPROF_EXEC_CHILD_H
#define MMPROF_EXEC_CHILD_H

#include <signal.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "util/error.h"

#define MMP_CHILD_GRACE 2.0 /* seconds between SIGTERM and SIGKILL */
/* The output pipe's size asked for (F_SETPIPE_SZ; 1 MiB is what an
 * unprivileged process may ask by default): a program that prints in
 * bursts seldom waits for mmprof to read. */
#define MMP_CHILD_PIPE_BYTES (1 << 20)

/* Who reads what the program prints, and looks at it while it runs. */
struct mmp_exec_watch {
	/* Its stdout and stderr, one stream, piece by piece as they come. */
	void (*output)(void *ctx, const char *buf, size_t n);
	void *ctx;
	/* Called as the wait starts and every tick_ms while the program runs
	 * (not in a stop's grace); NULL: never. */
	void (*tick)(void *tick_ctx);
	void *tick_ctx;
	unsigned tick_ms;
};

struct mmp_exec_child {
	pid_t pid;        /* also its process group; 0: none */
	int pidfd;
	int go_fd;        /* write end of the release pipe */
	int status_fd;    /* read end: the child's errno, or EOF at its exec */
	int out_fd;       /* read end of its stdout and stderr (non-blocking) */
	const struct mmp_exec_watch *watch; /* the spec's */
	uint64_t t_fork, t_exec, t_exit; /* monotonic ns */
	int status;       /* wait4's */
	struct rusage ru; /* the child and what it reaped */
	int reaped;
	int stop_signal;  /* it stopped by this signal (SIGSTOP...) and was ended; 0: no */
	unsigned nleft;   /* processes left running outside its group, ended */
	char left[160];   /* the first few: "1234 (sleep), 1240 (worker)" */
};

struct mmp_exec_spec {
	const char *path;    /* the executable (mmp_exec_child_find) */
	char *const *argv;   /* NULL-terminated */
	const int *pus;      /* OS PU numbers to bind to */
	unsigned npus;
	const struct mmp_exec_watch *watch; /* its output goes there; NULL: read and dropped */
	int mpol;            /* set_mempolicy mode the program runs under; -1: inherit mmprof's */
	const unsigned long *nodemask; /* its nodes, MMP_NODEMASK_BITS bits */
	char *const *envp;   /* its environment; NULL: mmprof's */
};

/* The executable for argv[0]: a name with a slash as it is, else the
 * first match on $PATH (as execvp would, but before the fork, so a
 * missing program is a message rather than a child's exit code). */
int mmp_exec_child_find(const char *name, char *path, size_t len, struct mmp_error *err);

int mmp_exec_child_start(struct mmp_exec_child *c, const struct mmp_exec_spec *spec,
			 struct mmp_error *err);
/* 0 once it runs the program; a negative errno (the child's) with a
 * message when binding or the exec failed (the child is reaped). */
int mmp_exec_child_go(struct mmp_exec_child *c, const char *path, struct mmp_error *err);
/* 0 when it exited by itself (status, ru, t_exit set); -ETIMEDOUT or
 * -EINTR (stop) when it was stopped, reaped too; -ECANCELED when it
 * stopped itself (kill -STOP $$: stop_signal says which signal) and was
 * ended, as nothing would continue it before the timeout. */
int mmp_exec_child_wait(struct mmp_exec_child *c, double timeout_s,
			const volatile sig_atomic_t *stop);
/* Stop and reap a child that is still there (error paths).  Idempotent. */
void mmp_exec_child_kill(struct mmp_exec_child *c);
void mmp_exec_child_close(struct mmp_exec_child *c);

/* "exited with status 3", "killed by SIGSEGV (core dumped)". */
const char *mmp_exec_child_describe(int status, char *buf, size_t len);

/* For a signal handler about to _exit (main's second Ctrl-C): SIGKILL
 * to the group of the child running now, if any.  Async-signal-safe. */
void mmp_exec_child_kill_running(void);

#endif
