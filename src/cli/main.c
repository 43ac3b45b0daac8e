/* mmprof: the table of commands, and the dispatch to the one argv[1]
 * names (mmprof's own, --config, when it names none).  Each command's
 * entry is a file of its own (cli.h); a new command is one file
 * src/cli/cmd_NAME.c and one row below, and its usage line in --help (and
 * so the man page and the completion) comes from that row. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

static const struct mmp_cli_command commands[] = {
	{ NULL, mmp_cli_cmd_run, "--config FILE [options]" },
	{ "compare", mmp_cli_cmd_compare, "A.csv B.csv [options]   (mmprof compare --help)" },
	{ "exec", mmp_cli_cmd_exec, "[options] -- CMD ARGS..." },
};
#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

void mmp_cli_print_usage(FILE *out)
{
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(out, "%s mmprof %s%s%s\n", i ? "      " : "usage:",
			commands[i].name ? commands[i].name : "", commands[i].name ? " " : "",
			commands[i].synopsis);
}

/* A supervisor may start mmprof with stdin, stdout or stderr closed
 * (`<&- 2>&-`). The next open() would then return 0, 1 or 2: the CSV's
 * temporary would be descriptor 2 and every note on stderr would land in
 * the CSV, the report in the events file. /dev/null takes each closed
 * one, lowest first, so that open() returns it. */
static int std_fds_safe(void)
{
	for (int fd = 0; fd <= 2; fd++) {
		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
			continue;
		int got = open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
		if (got < 0)
			return -errno;
		if (got != fd) { /* cannot happen: the lower ones are open */
			close(got);
			return -EBADF;
		}
	}
	return 0;
}

/* The command argv[1] names, else mmprof's own. */
static int dispatch(int argc, char **argv)
{
	for (size_t i = 0; argc > 1 && i < NCOMMANDS; i++)
		if (commands[i].name && strcmp(argv[1], commands[i].name) == 0)
			return commands[i].fn(argc - 1, argv + 1);
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (!commands[i].name)
			return commands[i].fn(argc, argv);
	return EXIT_USAGE;
}

int main(int argc, char **argv)
{
	/* Before anything opens a file; nothing can be said if it fails. */
	if (std_fds_safe() != 0)
		return EXIT_RUN_FAILED;
	/* Past `ulimit -f` a write raises SIGXFSZ, whose default ends the
	 * process at once: every measured row lost, nothing said.  Ignored,
	 * the write fails with EFBIG, an error like a full disk.  (A program
	 * run by probe = exec gets the default back.) */
	signal(SIGXFSZ, SIG_IGN);
	int status = dispatch(argc, argv);
	/* The listings, --help, --dry-run and --topology print and return
	 * EXIT_DONE; what did not reach stdout (a full disk, >/dev/full) is
	 * not done.  A run's report was checked already (a failed one is not
	 * EXIT_DONE). */
	if (status == EXIT_DONE) {
		int flushed = fflush(stdout), e = errno;
		if (flushed || ferror(stdout)) {
			fprintf(stderr, "mmprof: error: writing to stdout: %s\n",
				flushed ? strerror(e) : "a write failed");
			status = EXIT_RUN_FAILED;
		}
	}
	return status;
}
