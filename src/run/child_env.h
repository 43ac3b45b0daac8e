/* The environment a program runs in (probe = exec), built once per run:
 *
 *   1. mmprof's own environment;
 *   2. the job's `env = VAR=VALUE, ...`, each replacing a variable of the
 *      same name (a comma inside a value is written \,);
 *   3. with `jitnames = yes`, what runtimes need for the sampling profile
 *      to name the code they compile (profile.h), unless step 2 set the
 *      same variable (the job's word wins):
 *        .NET  DOTNET_PerfMapEnabled=1: it writes /tmp/perf-PID.map as
 *              it compiles.  Its W^X stays on: the map has the addresses
 *              the code runs at, in the read-execute view of its
 *              memfd:doublemapper file, which symbols.c looks up in it
 *              (perf the tool reads that view as a file and names
 *              nothing there, hence the advice to turn W^X off for it;
 *              not needed here, checked with .NET 10)
 *        Java  JAVA_TOOL_OPTIONS gets -agentpath: a perf-map agent when
 *              one is installed (mmp_jit_java_agent), else JDK 17's
 *              -XX:+DumpPerfMapAtExit (a map of the code cache at exit),
 *              with -XX:+IgnoreUnrecognizedVMOptions so an older JVM
 *              starts all the same (unnamed, and said why)
 *      Setting them for a program of another runtime changes nothing;
 *   4. per repetition, the preload library's variables (preload.h).
 *
 * What step 3 costs the program: a line of text per method compiled
 * (.NET) or the map written at exit (Java), in the job and every rung of
 * it alike, so comparisons hold.
 */
#ifndef MMPROF_CHILD_ENV_H
#define MMPROF_CHILD_ENV_H

#include <stddef.h>

struct mmp_child_env {
	char **v; /* "NAME=VALUE", NULL-terminated, each malloc'd */
	size_t n, cap;
};

/* env = text: 0 when every item is NAME=VALUE (NAME: letters, digits and
 * _, not first a digit); else -EINVAL and why in err. */
int mmp_env_check(const char *text, char *err, size_t errlen);

/* A copy of base (NULL: this process's environment).  0 or -ENOMEM. */
int mmp_child_env_init(struct mmp_child_env *e, char *const *base);
void mmp_child_env_free(struct mmp_child_env *e);
/* NAME=VALUE, replacing NAME's value if it has one. */
int mmp_child_env_set(struct mmp_child_env *e, const char *name, const char *value);
/* NAME's value, or NULL. */
const char *mmp_child_env_get(const struct mmp_child_env *e, const char *name);
/* Step 2: every item of an env = text (checked). */
int mmp_child_env_apply(struct mmp_child_env *e, const char *text);
/* Whether an env = text sets NAME. */
int mmp_env_sets(const char *text, const char *name);

/* "A=1 B=2": the variables e has that base (NULL: this process's
 * environment) has not, or has with another value, in buf (for the log's
 * header: what the program ran with besides mmprof's environment). */
const char *mmp_child_env_changes(const struct mmp_child_env *e, char *const *base, char *buf,
				  size_t len);

/* The perf maps jitnames asked for (not those the job's env = did): what
 * mmprof removes once read, and what the profile advises. */
enum {
	MMP_JIT_DOTNET = 1 << 0,     /* .NET's perf map (DOTNET_PerfMapEnabled) */
	MMP_JIT_JAVA_EXIT = 1 << 1,  /* JDK 17's perf map at exit */
	MMP_JIT_JAVA_AGENT = 1 << 2, /* a perf-map agent */
};

/* Step 3, leaving alone what the job's env = (user_env, may be NULL)
 * sets.  Returns the MMP_JIT_* set, or -ENOMEM. */
int mmp_child_env_jitnames(struct mmp_child_env *e, const char *user_env);

/* A perf-map agent for Java (perf-map-agent's libperfmap.so):
 * $MMPROF_PERFMAP_AGENT when set, else the first of a few places it is
 * installed in.  0 with its path in buf, or -ENOENT with where it looked
 * (the words a profile says when Java's code is unnamed). */
int mmp_jit_java_agent(char *buf, size_t len);

#endif
