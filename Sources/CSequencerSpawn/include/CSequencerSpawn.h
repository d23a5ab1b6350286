#ifndef CSEQUENCER_SPAWN_H
#define CSEQUENCER_SPAWN_H

#include <sys/types.h>

/// Starts `program` under a supervisor process that ends the command's whole process group
/// (SIGKILL) once the calling process ends, however it ends: it watches a pipe whose write end
/// only the calling process holds (made at the first call), and ends the group when the pipe
/// reads end-of-file. (Not `PR_SET_PDEATHSIG`, which fires when the *thread* that forked ends.)
///
/// The supervisor is the new group's leader (the returned pid is its pid and the group's ID),
/// ignores SIGTERM, SIGINT, SIGHUP, SIGQUIT and SIGPIPE (the group's signals are for the
/// command), waits for the command and ends as it ended: the same exit status, or the same
/// signal. The command has stdin from /dev/null, stdout and stderr to `output`, the working
/// directory `directory`, default signal dispositions, an empty signal mask, and no other open
/// descriptor.
///
/// Returns the supervisor's pid once the command has called exec, or -1 with `*error` set to
/// the errno of what failed (fork, or the command's chdir or exec).
/// Linux only; elsewhere it returns -1 with ENOSYS.
pid_t sequencer_spawn_supervised(const char *program, char *const argv[], char *const envp[], const char *directory,
                                 int output, int *error);

#endif
