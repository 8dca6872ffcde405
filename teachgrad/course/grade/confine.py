"""Limits a submission's process sets on itself before the student's code runs.

Resource limits (CPU seconds a check, address space, file size, no core dumps) come from POSIX
and hold everywhere the grader runs. Writes outside the submission's own copy are refused by
Landlock, Linux's unprivileged sandbox (kernel 5.13 and later): once the process has restricted
itself, no file outside the copy can be created, written, truncated, renamed or removed by it or
by anything it starts — and where the kernel speaks Landlock ABI 4, no TCP connection either.
Where Landlock is missing, :func:`restrict_writes` says so and the grader warns.
"""
import ctypes
import os
import resource
import struct

SYSCALL_CREATE_RULESET, SYSCALL_ADD_RULE, SYSCALL_RESTRICT_SELF = 444, 445, 446
CREATE_RULESET_VERSION = 1
RULE_PATH_BENEATH = 1
PR_SET_NO_NEW_PRIVS = 38

WRITE_FILE = 1 << 1
WRITES = WRITE_FILE | sum(1 << bit for bit in range(4, 13))   # remove_*, make_* (ABI 1)
REFER, TRUNCATE = 1 << 13, 1 << 14                             # ABI 2, ABI 3
TCP_BIND_AND_CONNECT = 0b11                                    # ABI 4


def set_limits(cpu_seconds, memory_bytes, file_bytes):
    """CPU seconds from now on, address space, largest file written, no core dumps."""
    limits = [(resource.RLIMIT_AS, memory_bytes, memory_bytes),
              (resource.RLIMIT_FSIZE, file_bytes, file_bytes),
              (resource.RLIMIT_CORE, 0, 0)]
    for which, soft, hard in limits:
        resource.setrlimit(which, (soft, hard))
    allow_cpu(cpu_seconds)


def allow_cpu(seconds):
    """SIGXCPU once this process has used `seconds` more of CPU time. Only the soft limit
    moves (a hard limit could never be raised again for the next check), so a process that
    lifts it itself is stopped by the grader's wall-clock timeout instead."""
    used = resource.getrusage(resource.RUSAGE_SELF)
    soft = int(used.ru_utime + used.ru_stime) + 1 + seconds
    resource.setrlimit(resource.RLIMIT_CPU, (soft, resource.getrlimit(resource.RLIMIT_CPU)[1]))


def landlock_abi(libc):
    """The kernel's Landlock ABI version, 0 when it has none."""
    if not hasattr(libc, "syscall"):
        return 0
    version = libc.syscall(SYSCALL_CREATE_RULESET, None, ctypes.c_size_t(0),
                           ctypes.c_uint32(CREATE_RULESET_VERSION))
    return max(version, 0)


def restrict_writes(writable_root):
    """Allow this process to write only beneath `writable_root` (and /dev/null); True if done."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
    except OSError:
        return False
    abi = landlock_abi(libc)
    if abi < 1:
        return False
    handled = WRITES | (REFER if abi >= 2 else 0) | (TRUNCATE if abi >= 3 else 0)
    ruleset = struct.pack("QQ", handled, TCP_BIND_AND_CONNECT) if abi >= 4 else struct.pack(
        "Q", handled)
    ruleset_fd = libc.syscall(SYSCALL_CREATE_RULESET, ruleset, ctypes.c_size_t(len(ruleset)),
                              ctypes.c_uint32(0))
    if ruleset_fd < 0:
        return False
    try:
        file_rights = WRITE_FILE | (TRUNCATE if abi >= 3 else 0)
        allowed = [(writable_root, handled), ("/dev/null", file_rights)]
        if not all(allow_beneath(libc, ruleset_fd, path, rights) for path, rights in allowed):
            return False
        if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            return False
        return libc.syscall(SYSCALL_RESTRICT_SELF, ruleset_fd, ctypes.c_uint32(0)) == 0
    finally:
        os.close(ruleset_fd)


def allow_beneath(libc, ruleset_fd, path, rights):
    """Add the rule "these rights beneath `path`" to the ruleset."""
    path_fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    try:
        rule = struct.pack("=Qi", rights, path_fd)          # packed: u64 rights, s32 fd
        return libc.syscall(SYSCALL_ADD_RULE, ruleset_fd, RULE_PATH_BENEATH, rule,
                            ctypes.c_uint32(0)) == 0
    finally:
        os.close(path_fd)
