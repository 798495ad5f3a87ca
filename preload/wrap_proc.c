/* Interposers: process and thread creation (timed as the caller sees the
 * call) and exec (not timed: it does not return; it only keeps LD_PRELOAD and
 * OSPROF_* in the new image's environment). */
#include <pthread.h>
#include <spawn.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "preload/wrap.h"

extern char **environ;
pid_t _Fork(void);

/* A fork is recorded by the parent only: the child starts its own file (the
 * atfork handler in process.c already ran inside the real fork). */
static inline __attribute__((always_inline)) pid_t fork_common(unsigned op, unsigned real_op,
                                                               int atfork_ran)
{
	pid_t (*real)(void) = osp_real(real_op);
	if (!real) {
		errno = ENOSYS;
		return -1;
	}
	char *slot = osp_slot();
	uint64_t t0 = osp_stamp();
	pid_t pid = real();
	if (pid == 0) {
		if (!atfork_ran)
			osp_preload_child();
		return 0;
	}
	if (slot)
		osp_rec_span(slot, op, t0, osp_stamp());
	return pid;
}

OSP_EXPORT pid_t fork(void)
{
	return fork_common(OSP_OPI_fork, OSP_OPI_fork, 1);
}

/* vfork cannot be wrapped by a function (the child would return through and
 * clobber the parent's frame), so it is served by fork: a conforming vfork
 * child only calls exec or _exit, which behave the same. */
OSP_EXPORT pid_t vfork(void)
{
	return fork_common(OSP_OPI_vfork, OSP_OPI_fork, 1);
}

/* _Fork runs no atfork handlers. */
OSP_EXPORT pid_t _Fork(void)
{
	return fork_common(OSP_OPI__Fork, OSP_OPI__Fork, 0);
}

OSP_WRAP(int, pthread_create,
         (pthread_t * t, const pthread_attr_t *attr, void *(*fn)(void *), void *arg),
         (t, attr, fn, arg), ENOSYS)

static inline __attribute__((always_inline)) int
spawn_common(unsigned op, pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
             const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	int (*real)(pid_t *, const char *, const posix_spawn_file_actions_t *,
	            const posix_spawnattr_t *, char *const[], char *const[]) = osp_real(op);
	if (!real)
		return ENOSYS;
	char **env = osp_env_fix(envp);
	osp_exec_check(path, op == OSP_OPI_posix_spawnp, -1);
	char *slot = osp_slot();
	uint64_t t0 = osp_stamp();
	int rv = real(pid, path, fa, attr, argv, env);
	if (slot)
		osp_rec_span(slot, op, t0, osp_stamp());
	osp_env_free(env, envp);
	return rv;
}

OSP_EXPORT int posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
                           const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	return spawn_common(OSP_OPI_posix_spawn, pid, path, fa, attr, argv, envp);
}

OSP_EXPORT int posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
                            const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	return spawn_common(OSP_OPI_posix_spawnp, pid, file, fa, attr, argv, envp);
}

/* exec family: exec* without an envp argument use environ, which the program
 * may have cleared (clearenv, env -i). */
#define OSP_EXEC(name, fparam, fnarg, envarg)                                                      \
	OSP_EXPORT int name(fparam, char *const argv[] OSP_EXEC_ENVP_##envarg)                     \
	{                                                                                          \
		static int (*real)(fparam, char *const[], char *const[]);                          \
		if (!real)                                                                         \
			real = osp_resolve_name(OSP_EXEC_REAL_##name);                             \
		if (!real) {                                                                       \
			errno = ENOSYS;                                                            \
			return -1;                                                                 \
		}                                                                                  \
		char *const *in = OSP_EXEC_IN_##envarg;                                            \
		char **env = osp_env_fix(in);                                                      \
		OSP_EXEC_CHECK_##name(fnarg);                                                      \
		osp_preload_flag(OSP_PF_EXEC, 1);                                                  \
		int rv = real(fnarg, argv, env);                                                   \
		int e = errno;                                                                     \
		osp_preload_flag(OSP_PF_EXEC, 0);                                                  \
		osp_env_free(env, in);                                                             \
		errno = e;                                                                         \
		return rv;                                                                         \
	}
#define OSP_EXEC_ENVP_envp , char *const envp[]
#define OSP_EXEC_ENVP_environ
#define OSP_EXEC_IN_envp    envp
#define OSP_EXEC_IN_environ environ
/* The envp-less forms call their envp-taking sibling. */
#define OSP_EXEC_REAL_execve  "execve"
#define OSP_EXEC_REAL_execv   "execve"
#define OSP_EXEC_REAL_execvpe "execvpe"
#define OSP_EXEC_REAL_execvp  "execvpe"
#define OSP_EXEC_REAL_fexecve "fexecve"

#define OSP_EXEC_CHECK_execve(p)  osp_exec_check(p, 0, -1)
#define OSP_EXEC_CHECK_execv(p)   osp_exec_check(p, 0, -1)
#define OSP_EXEC_CHECK_execvpe(f) osp_exec_check(f, 1, -1)
#define OSP_EXEC_CHECK_execvp(f)  osp_exec_check(f, 1, -1)
#define OSP_EXEC_CHECK_fexecve(d) osp_exec_check(NULL, 0, d)

OSP_EXEC(execve, const char *path, path, envp)
OSP_EXEC(execv, const char *path, path, environ)
OSP_EXEC(execvpe, const char *file, file, envp)
OSP_EXEC(execvp, const char *file, file, environ)
OSP_EXEC(fexecve, int fd, fd, envp)

/* _exit skips the exit handlers that mark a clean end: mark it here, so that
 * only processes killed by a signal count as killed. Not timed. */
#define OSP_EXIT_WRAP(name)                                                                        \
	OSP_EXPORT void name(int status)                                                           \
	{                                                                                          \
		static void (*real)(int);                                                          \
		if (!real)                                                                         \
			real = osp_resolve_name(#name);                                            \
		osp_preload_flag(OSP_PF_UEXIT, 1);                                                 \
		if (real)                                                                          \
			real(status);                                                              \
		syscall(SYS_exit_group, status);                                                   \
		__builtin_unreachable();                                                           \
	}

OSP_EXIT_WRAP(_exit)
OSP_EXIT_WRAP(_Exit)
