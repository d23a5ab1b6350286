#define _GNU_SOURCE
#include "CSequencerSpawn.h"

#include <errno.h>

#ifdef __linux__
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

// Everything after fork is async-signal-safe: the caller has threads, and the children may
// only make system calls until exec.

static void close_from(int lowest) {
#ifdef SYS_close_range
    if (syscall(SYS_close_range, lowest, ~0U, 0) == 0) return;
#endif
    for (int fd = lowest; fd < 65536; fd++) close(fd);
}

static void default_signals(void) {
    struct sigaction action = {0};
    action.sa_handler = SIG_DFL;
    sigemptyset(&action.sa_mask);
    for (int signal = 1; signal < NSIG; signal++) sigaction(signal, &action, NULL);
}

static void nothing(int signal) { (void)signal; }

// Ends the supervisor as the command ended.
static void end_as(int status) {
    if (WIFSIGNALED(status)) {
        int signal = WTERMSIG(status);
        struct sigaction action = {0};
        action.sa_handler = SIG_DFL;
        sigemptyset(&action.sa_mask);
        sigaction(signal, &action, NULL);
        sigset_t only;
        sigemptyset(&only);
        sigaddset(&only, signal);
        sigprocmask(SIG_UNBLOCK, &only, NULL);
        kill(getpid(), signal);
        _exit(128 + signal);
    }
    _exit(WIFEXITED(status) ? WEXITSTATUS(status) : 1);
}

// The command: fds 0 to 2 set, 3 the watch (closed here), 4 the status pipe (close-on-exec).
static void run_command(const char *program, char *const argv[], char *const envp[], const char *directory) {
    close(3);
    default_signals();
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    int error = 0;
    if (chdir(directory) != 0) {
        error = errno;
    } else {
        execve(program, argv, envp);
        error = errno;
    }
    ssize_t written;
    do { written = write(4, &error, sizeof error); } while (written < 0 && errno == EINTR);
    _exit(127);
}

static void supervise(const char *program, char *const argv[], char *const envp[], const char *directory, int output,
                      int watch, int status) {
    // The descriptors the command needs, moved out of the way, then to 0 to 4; the rest closed
    // (among them the write end of the watch, which only the caller may hold).
    int moved_output = fcntl(output, F_DUPFD, 10);
    int moved_watch = fcntl(watch, F_DUPFD, 10);
    int moved_status = fcntl(status, F_DUPFD, 10);
    int null = open("/dev/null", O_RDONLY);
    if (moved_output < 0 || moved_watch < 0 || moved_status < 0 || null < 0) _exit(127);
    if (dup2(null, 0) < 0 || dup2(moved_output, 1) < 0 || dup2(moved_output, 2) < 0 || dup2(moved_watch, 3) < 0 ||
        dup2(moved_status, 4) < 0)
        _exit(127);
    fcntl(4, F_SETFD, FD_CLOEXEC);
    close_from(5);

    default_signals();
    struct sigaction ignore = {0};
    ignore.sa_handler = SIG_IGN;
    sigemptyset(&ignore.sa_mask);
    int ignored[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGPIPE};
    for (unsigned i = 0; i < sizeof ignored / sizeof ignored[0]; i++) sigaction(ignored[i], &ignore, NULL);
    // SIGCHLD stays blocked but while ppoll waits, which it interrupts.
    struct sigaction wake = {0};
    wake.sa_handler = nothing;
    sigemptyset(&wake.sa_mask);
    sigaction(SIGCHLD, &wake, NULL);
    sigset_t blocked, waiting;
    sigfillset(&blocked);
    sigprocmask(SIG_SETMASK, &blocked, NULL);
    sigemptyset(&waiting);

    pid_t command = fork();
    if (command == 0) run_command(program, argv, envp, directory);
    if (command < 0) {
        int error = errno;
        ssize_t written;
        do { written = write(4, &error, sizeof error); } while (written < 0 && errno == EINTR);
        _exit(127);
    }
    close(4);
    for (;;) {
        int ended;
        pid_t reaped = waitpid(command, &ended, WNOHANG);
        if (reaped == command) end_as(ended);
        struct pollfd poll_watch = {.fd = 3, .events = POLLIN};
        int ready = ppoll(&poll_watch, 1, NULL, &waiting);
        if (ready > 0) {
            char byte;
            ssize_t got = read(3, &byte, 1);
            if (got == 0 || (got < 0 && errno != EINTR && errno != EAGAIN)) {
                // The caller is gone: so is the command, with everything it started in its group.
                kill(0, SIGKILL);
                _exit(137);
            }
        }
    }
}

// The read end of the pipe whose write end this process holds until it ends (never closed,
// close-on-exec: no other program inherits it).
static int watch_read = -1;
static pthread_once_t watch_once = PTHREAD_ONCE_INIT;

static void make_watch(void) {
    int ends[2];
    if (pipe2(ends, O_CLOEXEC) == 0) watch_read = ends[0];
}

pid_t sequencer_spawn_supervised(const char *program, char *const argv[], char *const envp[], const char *directory,
                                 int output, int *error) {
    pthread_once(&watch_once, make_watch);
    int watch = watch_read;
    if (watch < 0) {
        *error = EMFILE;
        return -1;
    }
    int status[2];
    if (pipe2(status, O_CLOEXEC) != 0) {
        *error = errno;
        return -1;
    }
    sigset_t all, previous;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &previous);
    pid_t supervisor = fork();
    if (supervisor == 0) {
        setpgid(0, 0);
        supervise(program, argv, envp, directory, output, watch, status[1]);
    }
    int fork_error = errno;
    pthread_sigmask(SIG_SETMASK, &previous, NULL);
    close(status[1]);
    if (supervisor < 0) {
        close(status[0]);
        *error = fork_error;
        return -1;
    }
    // End of file: the command called exec. Four bytes: the errno of its chdir or exec.
    int failure = 0;
    ssize_t got;
    do { got = read(status[0], &failure, sizeof failure); } while (got < 0 && errno == EINTR);
    close(status[0]);
    if (got == sizeof failure) {
        int ended;
        while (waitpid(supervisor, &ended, 0) < 0 && errno == EINTR) {}
        *error = failure;
        return -1;
    }
    return supervisor;
}

#else

pid_t sequencer_spawn_supervised(const char *program, char *const argv[], char *const envp[], const char *directory,
                                 int output, int *error) {
    (void)program; (void)argv; (void)envp; (void)directory; (void)output;
    *error = ENOSYS;
    return -1;
}

#endif
