"""The system calls a bot may make: one table, a line of why per entry (default deny).

``arena.bots.seccomp`` compiles these tables into the filter every bot process runs under.
A call that is not listed fails with ``ENOSYS`` ("not implemented": runtimes treat it as a
kernel without the call and fall back, as glibc does from ``clone3`` to ``clone``);
``REFUSED`` gives a few refusals another error where callers need one to go on. Found by
tracing (``strace -f``) whole games and builds of every shipped language: the Python SDK
bots over gRPC, the Node.js, C++, Go, shell-and-jq and Ruby bots and starters, and their
builds (g++ and cmake, ``go build``, ``npm ci``). A seat gets ``SEAT``; a build gets
``SEAT`` and ``BUILD``.

An argument the kernel reads as 32 bits (an ``int`` command, flags, advice) is compared
masked to its low 32 bits (``Only.mask``), so a value with its upper 32 bits set is judged
as the kernel will read it, never passed as "something else". docs/SECURITY.md says how to
ask for a call that is missing.
"""

from __future__ import annotations

import errno
from dataclasses import dataclass
from typing import Final

__all__ = ["BUILD", "REFUSED", "SEAT", "Allowed", "Only", "Refused"]

_LOW32 = 0xFFFF_FFFF


@dataclass(frozen=True)
class Only:
    """An argument condition: argument ``arg`` (0-based) masked with ``mask`` equals one of
    ``values``. The default mask is the low 32 bits: the kernel's ``int`` arguments."""

    arg: int
    values: tuple[int, ...]
    mask: int = _LOW32


@dataclass(frozen=True)
class Allowed:
    """A call a bot may make (with ``only``: only with those argument values), and why."""

    name: str
    why: str
    only: Only | None = None


@dataclass(frozen=True)
class Refused:
    """A refusal with its own error, for callers that need that error to go on."""

    name: str
    error: int
    why: str
    when: Only | None = None


# Argument values named for the table below (from the kernel's uapi headers).
F_DUPFD, F_GETFD, F_SETFD, F_GETFL, F_SETFL = 0, 1, 2, 3, 4
F_GETLK, F_SETLK, F_SETLKW = 5, 6, 7
F_OFD_GETLK, F_OFD_SETLK, F_OFD_SETLKW = 36, 37, 38
F_SETLEASE, F_GETLEASE, F_NOTIFY, F_DUPFD_CLOEXEC = 1024, 1025, 1026, 1030
F_GETPIPE_SZ, F_ADD_SEALS, F_GET_SEALS = 1032, 1033, 1034
FUTEX_WAIT, FUTEX_WAKE, FUTEX_WAIT_BITSET, FUTEX_WAKE_BITSET = 0, 1, 9, 10
FUTEX_PRIVATE_FLAG = 128
FUTEX_OP_AND_PRIVATE = 0x7F | FUTEX_PRIVATE_FLAG  # the command and the private flag
CLONE_NEW_NAMESPACES = 0x7E02_0000  # NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET
CLONE_PIDFD = 0x1000
SOL_SOCKET = 1
SO_DEBUG, SO_REUSEADDR, SO_TYPE, SO_ERROR, SO_BROADCAST, SO_SNDBUF, SO_RCVBUF = 1, 2, 3, 4, 6, 7, 8
SO_KEEPALIVE, SO_LINGER, SO_REUSEPORT, SO_PASSCRED, SO_PEERCRED = 9, 13, 15, 16, 17
SO_RCVLOWAT, SO_SNDLOWAT, SO_RCVTIMEO_OLD, SO_SNDTIMEO_OLD = 18, 19, 20, 21
SO_ACCEPTCONN, SO_MARK, SO_PROTOCOL, SO_DOMAIN = 30, 36, 38, 39
SO_COOKIE, SO_NETNS_COOKIE, SO_RCVTIMEO_NEW, SO_SNDTIMEO_NEW = 57, 71, 66, 67
SO_PASSPIDFD, SO_PEERPIDFD = 76, 77
AF_UNIX, AF_INET, AF_INET6, AF_NETLINK = 1, 2, 10, 16
TCGETS, TIOCGWINSZ, FIONREAD, FIONBIO, FIONCLEX, FIOCLEX = (
    0x5401,
    0x5413,
    0x541B,
    0x5421,
    0x5450,
    0x5451,
)
PR_SET_PDEATHSIG, PR_GET_PDEATHSIG, PR_GET_DUMPABLE, PR_SET_KEEPCAPS = 1, 2, 3, 8
PR_SET_NAME, PR_GET_NAME, PR_CAPBSET_READ, PR_GET_SECUREBITS = 15, 16, 23, 27
PR_SET_NO_NEW_PRIVS, PR_GET_NO_NEW_PRIVS, PR_SET_THP_DISABLE, PR_GET_THP_DISABLE = 38, 39, 41, 42
PR_CAP_AMBIENT, PR_SET_VMA = 47, 0x5356_4D41
MADV_NORMAL, MADV_RANDOM, MADV_SEQUENTIAL, MADV_WILLNEED, MADV_DONTNEED = 0, 1, 2, 3, 4
MADV_FREE, MADV_REMOVE, MADV_DONTFORK, MADV_DOFORK = 8, 9, 10, 11
MADV_MERGEABLE, MADV_UNMERGEABLE, MADV_HUGEPAGE, MADV_NOHUGEPAGE = 12, 13, 14, 15
MADV_DONTDUMP, MADV_DODUMP, MADV_WIPEONFORK, MADV_KEEPONFORK = 16, 17, 18, 19
MADV_COLD, MADV_PAGEOUT, MADV_POPULATE_READ, MADV_POPULATE_WRITE = 20, 21, 22, 23
MADV_DONTNEED_LOCKED, MADV_COLLAPSE = 24, 25
POSIX_FADV_NORMAL, POSIX_FADV_RANDOM, POSIX_FADV_SEQUENTIAL, POSIX_FADV_WILLNEED = 0, 1, 2, 3
POSIX_FADV_DONTNEED, POSIX_FADV_NOREUSE = 4, 5
RWF_NOWAIT = 0x8
S_IFMT, S_IFIFO = 0o170000, 0o010000

# The options of its unix socket a seat may read and set (a unix socket knows only
# SOL_SOCKET's; TCP_NODELAY and TCP_INQ, which gRPC tries, share their numbers with SO_DEBUG
# and SO_MARK, which read only the socket's own flags). Not SO_COOKIE (a counter of every
# socket asked for its cookie on the machine), SO_NETNS_COOKIE, SO_PEERPIDFD or SO_PASSPIDFD
# (pidfds: REFUSED).
SOCKET_OPTIONS = (
    SO_DEBUG,
    SO_REUSEADDR,
    SO_TYPE,
    SO_ERROR,
    SO_BROADCAST,
    SO_SNDBUF,
    SO_RCVBUF,
    SO_KEEPALIVE,
    SO_LINGER,
    SO_REUSEPORT,
    SO_PASSCRED,
    SO_PEERCRED,
    SO_RCVLOWAT,
    SO_SNDLOWAT,
    SO_RCVTIMEO_OLD,
    SO_SNDTIMEO_OLD,
    SO_ACCEPTCONN,
    SO_MARK,
    SO_PROTOCOL,
    SO_DOMAIN,
    SO_RCVTIMEO_NEW,
    SO_SNDTIMEO_NEW,
)

# What every bot process may do: run a program, its threads and children, its files, its
# pipes and its seat's unix socket, its clocks and signals, all within its own sandbox.
SEAT: Final[tuple[Allowed, ...]] = (
    # Programs, processes and threads.
    Allowed("execve", "run the bot's command, a shell's commands"),
    Allowed("execveat", "fexecve, as execve"),
    Allowed(
        "clone",
        "threads and processes; never a namespace (any CLONE_NEW* bit refused), never a "
        "pidfd (CLONE_PIDFD: a pidfd's inode number counts the pidfds made on the machine)",
        Only(0, (0,), mask=CLONE_NEW_NAMESPACES | CLONE_PIDFD),
    ),
    Allowed("fork", "a child process"),
    Allowed("vfork", "a child process (posix_spawn, sh)"),
    Allowed("wait4", "reap a child"),
    Allowed("waitid", "reap a child"),
    Allowed("exit", "end a thread"),
    Allowed("exit_group", "end the process"),
    Allowed("set_tid_address", "glibc's thread start-up"),
    Allowed("set_robust_list", "glibc's thread start-up (robust mutexes)"),
    Allowed("get_robust_list", "glibc's robust mutexes"),
    Allowed("rseq", "glibc registers restartable sequences per thread (its own)"),
    Allowed("arch_prctl", "thread-local storage (ARCH_SET_FS) and CPU features of this process"),
    Allowed(
        "prctl",
        "a thread's name, no-new-privs, death signal, capability reads (setpriv), THP and "
        "memory-region names (Ruby, V8); nothing that reaches another process",
        Only(
            0,
            (
                PR_SET_PDEATHSIG,
                PR_GET_PDEATHSIG,
                PR_GET_DUMPABLE,
                PR_SET_KEEPCAPS,
                PR_SET_NAME,
                PR_GET_NAME,
                PR_CAPBSET_READ,
                PR_GET_SECUREBITS,
                PR_SET_NO_NEW_PRIVS,
                PR_GET_NO_NEW_PRIVS,
                PR_SET_THP_DISABLE,
                PR_GET_THP_DISABLE,
                PR_CAP_AMBIENT,
                PR_SET_VMA,
            ),
        ),
    ),
    # setpriv (util-linux) becomes the bot's own user under the filter; without the
    # capabilities it then drops, these change nothing.
    Allowed("capget", "setpriv reads its capabilities"),
    Allowed("capset", "setpriv drops its capabilities"),
    Allowed("setgroups", "setpriv clears the groups (refused by the kernel without CAP_SETGID)"),
    Allowed("setresuid", "setpriv becomes the bot's user (only among its own ids after)"),
    Allowed("setresgid", "setpriv becomes the bot's group (only among its own ids after)"),
    Allowed("setuid", "as setresuid"),
    Allowed("setgid", "as setresgid"),
    Allowed("getresuid", "who am I"),
    Allowed("getresgid", "who am I"),
    Allowed("getuid", "who am I"),
    Allowed("geteuid", "who am I"),
    Allowed("getgid", "who am I"),
    Allowed("getegid", "who am I"),
    Allowed("getgroups", "who am I"),
    Allowed("getpid", "who am I"),
    Allowed("getppid", "who am I"),
    Allowed("gettid", "who am I"),
    Allowed("getpgrp", "its process group"),
    Allowed("getpgid", "its process group"),
    Allowed("setpgid", "job control in a shell (within the bot's own PID namespace)"),
    Allowed("getsid", "its session"),
    Allowed("setsid", "a daemonising child (still in the bot's cgroup and PID namespace)"),
    Allowed("prlimit64", "read or lower its limits (within its own PID namespace)"),
    Allowed("getrlimit", "read its limits"),
    Allowed("setrlimit", "lower its limits"),
    Allowed("getrusage", "its own (or its children's) CPU and memory"),
    Allowed("times", "its own CPU time"),
    Allowed("uname", "the kernel's name and version (fixed)"),
    Allowed("sched_getaffinity", "how many CPUs it may use (Go, glibc, libuv)"),
    Allowed("sched_yield", "give up the CPU"),
    Allowed("sched_getparam", "its own scheduling (Ruby, Node)"),
    Allowed("sched_getscheduler", "its own scheduling (Ruby, Node)"),
    Allowed("sched_get_priority_max", "priority bounds (pthread attributes)"),
    Allowed("sched_get_priority_min", "priority bounds (pthread attributes)"),
    Allowed("getpriority", "its own nice value"),
    Allowed("getrandom", "randomness"),
    # Memory (its own: private mappings, its cgroup's limit).
    Allowed("brk", "the heap"),
    Allowed("mmap", "memory and mapped files"),
    Allowed("munmap", "memory"),
    Allowed("mremap", "memory"),
    Allowed("mprotect", "memory protection (JIT compilers)"),
    Allowed("pkey_alloc", "memory protection keys (glibc, V8)"),
    Allowed("pkey_free", "memory protection keys"),
    Allowed("pkey_mprotect", "memory protection keys"),
    Allowed("msync", "flush a mapping of its own files"),
    Allowed("mlock", "pin its own pages (bounded by RLIMIT_MEMLOCK)"),
    Allowed("munlock", "unpin its own pages"),
    Allowed(
        "madvise",
        "hints about its own memory; not COLD or PAGEOUT (they evict shared files' pages "
        "from the page cache), nor MERGEABLE (same-page merging across processes)",
        Only(
            2,
            (
                MADV_NORMAL,
                MADV_RANDOM,
                MADV_SEQUENTIAL,
                MADV_DONTNEED,
                MADV_FREE,
                MADV_REMOVE,
                MADV_DONTFORK,
                MADV_DOFORK,
                MADV_HUGEPAGE,
                MADV_NOHUGEPAGE,
                MADV_DONTDUMP,
                MADV_DODUMP,
                MADV_WIPEONFORK,
                MADV_KEEPONFORK,
                MADV_POPULATE_READ,
                MADV_POPULATE_WRITE,
                MADV_DONTNEED_LOCKED,
            ),
        ),
    ),
    Allowed(
        "futex",
        "wait and wake among its own threads: only FUTEX_PRIVATE_FLAG futexes, which the "
        "kernel keys by process, never by file (REFUSED has the shared ones)",
        Only(1, (FUTEX_PRIVATE_FLAG,), mask=FUTEX_PRIVATE_FLAG),
    ),
    # Files: its own copy, its tmpfs home, the read-only system.
    Allowed("read", "files, pipes, its socket"),
    Allowed("write", "files, pipes, its socket, its log"),
    Allowed("readv", "as read"),
    Allowed("writev", "as write"),
    Allowed("pread64", "as read"),
    Allowed("pwrite64", "as write"),
    Allowed("preadv", "as read"),
    Allowed("pwritev", "as write"),
    Allowed(
        "preadv2",
        "as read; not RWF_NOWAIT (it answers whether a shared file's page is cached)",
        Only(5, (0,), mask=RWF_NOWAIT),
    ),
    Allowed("pwritev2", "as write; not RWF_NOWAIT", Only(5, (0,), mask=RWF_NOWAIT)),
    Allowed("sendfile", "copy between its files"),
    Allowed("copy_file_range", "copy between its files (Python's shutil)"),
    Allowed("splice", "pipes"),
    Allowed("tee", "pipes"),
    Allowed("open", "files"),
    Allowed("openat", "files"),
    Allowed("creat", "files"),
    Allowed("close", "files"),
    Allowed("close_range", "close inherited files (Python's subprocess)"),
    Allowed("lseek", "files"),
    Allowed("stat", "file metadata"),
    Allowed("fstat", "file metadata"),
    Allowed("lstat", "file metadata"),
    Allowed("newfstatat", "file metadata"),
    Allowed("statx", "file metadata"),
    Allowed("access", "file permissions"),
    Allowed("faccessat", "file permissions"),
    Allowed("faccessat2", "file permissions"),
    Allowed("readlink", "links (a virtualenv's python, the system's alternatives)"),
    Allowed("readlinkat", "links"),
    Allowed("getdents64", "list a directory"),
    Allowed("getcwd", "the working directory"),
    Allowed("chdir", "the working directory"),
    Allowed("fchdir", "the working directory"),
    Allowed("mkdir", "its own files"),
    Allowed("mkdirat", "its own files"),
    Allowed("rmdir", "its own files"),
    Allowed("unlink", "its own files"),
    Allowed("unlinkat", "its own files"),
    Allowed("rename", "its own files"),
    Allowed("renameat", "its own files"),
    Allowed("renameat2", "its own files"),
    Allowed("link", "its own files"),
    Allowed("linkat", "its own files"),
    Allowed("symlink", "its own files"),
    Allowed("symlinkat", "its own files"),
    Allowed("chmod", "its own files"),
    Allowed("fchmod", "its own files"),
    Allowed("fchmodat", "its own files"),
    Allowed(
        "mknodat",
        "FIFOs only (mkfifo: the shell bot's pipes); never a device",
        Only(2, (S_IFIFO,), mask=S_IFMT),
    ),
    Allowed("mknod", "FIFOs only (mkfifo)", Only(1, (S_IFIFO,), mask=S_IFMT)),
    Allowed("getxattr", "extended attributes of its files (ls -l, cp -a): fixed metadata"),
    Allowed("lgetxattr", "extended attributes of its files"),
    Allowed("fgetxattr", "extended attributes of its files"),
    Allowed("listxattr", "extended attributes of its files"),
    Allowed("llistxattr", "extended attributes of its files"),
    Allowed("flistxattr", "extended attributes of its files"),
    Allowed("umask", "its file mode mask"),
    Allowed("utimensat", "its own files' times (touch, cp -p)"),
    Allowed("truncate", "its own files"),
    Allowed("ftruncate", "its own files"),
    Allowed("fallocate", "its own files"),
    Allowed("fsync", "its own files"),
    Allowed("fdatasync", "its own files"),
    Allowed("dup", "file descriptors"),
    Allowed("dup2", "file descriptors"),
    Allowed("dup3", "file descriptors"),
    Allowed(
        "fcntl",
        "descriptor and status flags, duplicates, pipe size and seals; never a lock, a "
        "lease or a directory notification (REFUSED)",
        Only(
            1,
            (
                F_DUPFD,
                F_GETFD,
                F_SETFD,
                F_GETFL,
                F_SETFL,
                F_DUPFD_CLOEXEC,
                F_GETPIPE_SZ,
                F_ADD_SEALS,
                F_GET_SEALS,
            ),
        ),
    ),
    Allowed(
        "ioctl",
        "is it a terminal, its size, bytes waiting, non-blocking and close-on-exec flags",
        Only(1, (TCGETS, TIOCGWINSZ, FIONREAD, FIONBIO, FIONCLEX, FIOCLEX)),
    ),
    Allowed("pipe", "pipes"),
    Allowed("pipe2", "pipes"),
    # Waiting for events.
    Allowed("poll", "wait for its descriptors"),
    Allowed("ppoll", "wait for its descriptors"),
    Allowed("select", "wait for its descriptors"),
    Allowed("pselect6", "wait for its descriptors"),
    Allowed("epoll_create", "wait for its descriptors"),
    Allowed("epoll_create1", "wait for its descriptors"),
    Allowed("epoll_ctl", "wait for its descriptors"),
    Allowed("epoll_wait", "wait for its descriptors"),
    Allowed("epoll_pwait", "wait for its descriptors"),
    Allowed("epoll_pwait2", "wait for its descriptors"),
    Allowed("eventfd", "wake its own threads (gRPC, libuv)"),
    Allowed("eventfd2", "wake its own threads (gRPC, libuv)"),
    # Its seat's socket: a unix socket, in its own network namespace.
    Allowed("socket", "a unix socket only (the seat's referee socket)", Only(0, (AF_UNIX,))),
    Allowed("socketpair", "unix socket pairs only", Only(0, (AF_UNIX,))),
    Allowed("connect", "its seat's socket"),
    Allowed("bind", "a unix socket of its own"),
    Allowed("listen", "a unix socket of its own"),
    Allowed("accept", "a unix socket of its own"),
    Allowed("accept4", "a unix socket of its own"),
    Allowed("getsockname", "its socket"),
    Allowed("getpeername", "its socket"),
    Allowed("getsockopt", "its socket's own settings (SOCKET_OPTIONS)", Only(2, SOCKET_OPTIONS)),
    Allowed("setsockopt", "its socket's own settings (SOCKET_OPTIONS)", Only(2, SOCKET_OPTIONS)),
    Allowed("shutdown", "its socket"),
    Allowed("sendto", "its socket"),
    Allowed("recvfrom", "its socket"),
    Allowed("sendmsg", "its socket"),
    Allowed("recvmsg", "its socket"),
    Allowed("sendmmsg", "its socket"),
    Allowed("recvmmsg", "its socket"),
    # Time and signals, within its own PID namespace.
    Allowed("clock_gettime", "clocks (when the vDSO is not used)"),
    Allowed("clock_getres", "clocks"),
    Allowed("gettimeofday", "clocks"),
    Allowed("time", "clocks"),
    Allowed("nanosleep", "sleep"),
    Allowed("clock_nanosleep", "sleep"),
    Allowed("getitimer", "its own interval timers"),
    Allowed("setitimer", "its own interval timers (Python's signal.setitimer)"),
    Allowed("alarm", "its own alarm"),
    Allowed("timer_create", "its own POSIX timers (Ruby's timer thread)"),
    Allowed("timer_settime", "its own POSIX timers"),
    Allowed("timer_gettime", "its own POSIX timers"),
    Allowed("timer_getoverrun", "its own POSIX timers"),
    Allowed("timer_delete", "its own POSIX timers"),
    Allowed("rt_sigaction", "signal handlers"),
    Allowed("rt_sigprocmask", "signal masks"),
    Allowed("rt_sigreturn", "return from a signal handler"),
    Allowed("rt_sigsuspend", "wait for a signal"),
    Allowed("rt_sigtimedwait", "wait for a signal"),
    Allowed("rt_sigpending", "pending signals"),
    Allowed("sigaltstack", "a signal stack (Go, Ruby)"),
    Allowed("kill", "signal its own processes (its PID namespace has no other)"),
    Allowed("tgkill", "signal its own threads (Go's preemption)"),
    Allowed("tkill", "signal its own threads"),
    Allowed("pause", "wait for a signal"),
)

# What a build adds: compilers and package managers (still no lock, no shared futex, no
# namespace; the network only where the operator gives builds the network).
BUILD: Final[tuple[Allowed, ...]] = (
    Allowed(
        "socket",
        "the network, where the operator allows it (npm, go); netlink for the interfaces",
        Only(0, (AF_INET, AF_INET6, AF_NETLINK)),
    ),
    Allowed("getsockopt", "the network's sockets, where the operator allows it (npm, go)"),
    Allowed("setsockopt", "the network's sockets, where the operator allows it (npm, go)"),
    Allowed("sysinfo", "compilers size their memory use by the machine's (gcc, ld)"),
    Allowed(
        "fadvise64",
        "read-ahead hints (cp, tar); not DONTNEED or NOREUSE",
        Only(3, (POSIX_FADV_NORMAL, POSIX_FADV_RANDOM, POSIX_FADV_SEQUENTIAL, POSIX_FADV_WILLNEED)),
    ),
    Allowed("fchown", "keep its own files' owner (cp -p, tar)"),
    Allowed("fchownat", "keep its own files' owner"),
    Allowed("chown", "keep its own files' owner"),
    Allowed("lchown", "keep its own files' owner"),
    Allowed("utimes", "its own files' times"),
    Allowed("futimesat", "its own files' times"),
    Allowed("utime", "its own files' times"),
    Allowed("statfs", "free space in its copy (package managers)"),
    Allowed("fstatfs", "free space in its copy (package managers)"),
    Allowed("setpriority", "nice itself (make, compilers)"),
)

_LOCKS = (
    F_GETLK,
    F_SETLK,
    F_SETLKW,
    F_OFD_GETLK,
    F_OFD_SETLK,
    F_OFD_SETLKW,
    F_SETLEASE,
    F_GETLEASE,
    F_NOTIFY,
)

# Refusals with an error of their own (every other refusal is ENOSYS). Conditions never
# overlap an Allowed entry's.
REFUSED: Final[tuple[Refused, ...]] = (
    Refused(
        "fcntl",
        errno.ENOLCK,
        "locks, leases and directory notifications: a lock on a file two seats can "
        "read (the system's files) is seen by both; ENOLCK says no locks are available",
        Only(1, _LOCKS),
    ),
    Refused(
        "futex",
        errno.EAGAIN,
        "a wait on a process-shared futex (no FUTEX_PRIVATE_FLAG): the kernel keys it by "
        "file, so two seats mapping one file (the system's libc) would wait on one word. "
        "EAGAIN, 'the word changed', makes glibc's callers look again: pthread_join and "
        "process-shared semaphores spin instead of sleeping",
        Only(1, (FUTEX_WAIT, FUTEX_WAIT_BITSET), mask=FUTEX_OP_AND_PRIVATE),
    ),
    Refused(
        "futex",
        errno.EINVAL,
        "a wake of a process-shared futex: no seat can sleep on one (above); glibc ignores "
        "EINVAL from a wake",
        Only(1, (FUTEX_WAKE, FUTEX_WAKE_BITSET), mask=FUTEX_OP_AND_PRIVATE),
    ),
    Refused(
        "madvise",
        errno.EINVAL,
        "advice that evicts or merges pages: COLD and PAGEOUT drop a shared file's pages "
        "from the page cache, MERGEABLE and COLLAPSE reach other processes' pages",
        Only(2, (MADV_MERGEABLE, MADV_UNMERGEABLE, MADV_COLD, MADV_PAGEOUT, MADV_COLLAPSE)),
    ),
    Refused(
        "clone3",
        errno.ENOSYS,
        "its flags live in memory, where a filter cannot look; glibc falls back to clone",
    ),
    Refused(
        "getsockopt",
        errno.ENOPROTOOPT,
        "a socket's cookie (a counter of every socket asked for one on the machine), its "
        "network namespace's, its peer's pidfd (whose inode number counts the machine's "
        "pidfds); ENOPROTOOPT, an option this socket does not have",
        Only(2, (SO_COOKIE, SO_NETNS_COOKIE, SO_PEERPIDFD, SO_PASSPIDFD)),
    ),
    Refused(
        "setsockopt",
        errno.ENOPROTOOPT,
        "asking for the sender's pidfd with every message (SO_PASSPIDFD), as above",
        Only(2, (SO_COOKIE, SO_NETNS_COOKIE, SO_PEERPIDFD, SO_PASSPIDFD)),
    ),
    Refused("flock", errno.ENOSYS, "whole-file locks (as fcntl's): Go and Cargo go on without"),
)
