// Linux-only headers that Swift's Glibc module does not carry (epoll, eventfd, signalfd, inotify, prctl).
#ifndef CDASHPORT_LINUX_SHIM_H
#define CDASHPORT_LINUX_SHIM_H
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/inotify.h>
#include <sys/un.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <signal.h>
#include <malloc.h>
#include <sys/prctl.h>
#include <spawn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

// accept4 is declared by glibc only under _GNU_SOURCE, which Swift's Glibc module does not set.
// The symbol is always in libc; declare it so the transport can accept non-blocking, close-on-exec
// sockets in one call instead of accept + two fcntl calls per connection.
#ifndef __USE_GNU
extern int accept4(int fd, struct sockaddr *addr, socklen_t *addrlen, int flags);
#endif

/// accept4(2) under a project-specific name, so it never clashes with a module that declares it.
static inline int cdashport_accept4(int fd, struct sockaddr *addr, socklen_t *addrlen, int flags) {
    return accept4(fd, addr, addrlen, flags);
}

/// Asks the kernel to stamp each received packet of `fd` with its arrival time (SO_TIMESTAMPNS).
/// Returns 0 on success.
static inline int cdashport_enable_receive_timestamps(int fd) {
    int on = 1;
    return setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof on);
}

/// recv(2) that also gives the kernel's arrival time of the newest data it read (SCM_TIMESTAMPNS,
/// CLOCK_REALTIME in nanoseconds) in *arrival, or -1 when the kernel gave none. For TCP the time is
/// that of the last segment read; on loopback, when the peer's send delivered it.
static inline ssize_t cdashport_recv_arrival(int fd, void *buffer, size_t length, long long *arrival) {
    union {
        char bytes[CMSG_SPACE(sizeof(struct timespec))];
        struct cmsghdr align;
    } control;
    struct iovec vector = {buffer, length};
    struct msghdr message = {0};
    message.msg_iov = &vector;
    message.msg_iovlen = 1;
    message.msg_control = control.bytes;
    message.msg_controllen = sizeof control.bytes;
    *arrival = -1;
    ssize_t count = recvmsg(fd, &message, 0);
    if (count <= 0) return count;
    for (struct cmsghdr *header = CMSG_FIRSTHDR(&message); header != NULL; header = CMSG_NXTHDR(&message, header)) {
        if (header->cmsg_level == SOL_SOCKET && header->cmsg_type == SCM_TIMESTAMPNS) {
            struct timespec time;
            memcpy(&time, CMSG_DATA(header), sizeof time);
            *arrival = (long long)time.tv_sec * 1000000000LL + time.tv_nsec;
        }
    }
    return count;
}

/// CLOCK_REALTIME now, in nanoseconds (what cdashport_recv_arrival's times are on).
static inline long long cdashport_realtime_nanoseconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    return (long long)now.tv_sec * 1000000000LL + now.tv_nsec;
}

/// glibc's malloc keeps at most `count` arenas (mallopt M_ARENA_MAX; 8 per core by default).
/// Returns 1 on success.
static inline int cdashport_set_malloc_arena_max(int count) {
    return mallopt(M_ARENA_MAX, count);
}

/// Gives the pages malloc holds free (in every arena) back to the system (malloc_trim(3)).
/// Returns 1 when memory was released.
static inline int cdashport_release_free_memory(void) {
    return malloc_trim(0);
}

/// Bytes malloc counts as in use in every arena (mallinfo2's uordblks), blocks in the threads'
/// caches included.
static inline size_t cdashport_malloc_in_use_bytes(void) {
    return mallinfo2().uordblks;
}

/// Frees every block of `blocks` (a calloc'ed array of pointers ending in NULL), then the array, on
/// the thread that runs it; see cdashport_release_thread_cache.
static inline void *cdashport_free_blocks(void *blocks) {
    void **list = (void **)blocks;
    for (size_t index = 0; list[index] != NULL; index++) free(list[index]);
    free(list);
    return NULL;
}

/// Empties the calling thread's malloc cache (glibc's tcache: up to 7 free blocks of each of 64
/// sizes up to 1032 bytes, kept for the thread's next mallocs). malloc_trim cannot give back a page
/// that holds one of them, and a busy thread's cache points all over the heap: the reactor's held
/// 446 blocks (240 KB) after a soak, the 1.7 MiB of pages the idle server kept (issue 23 item 7).
/// The blocks are taken out by mallocs of each size and freed on a short-lived thread, whose cache
/// glibc empties into the arenas when it exits, so the next malloc_trim can give their pages back.
/// Blocks of a size the cache held fewer of come from the arena and go back to it. Returns 1 when
/// the blocks were handed over (0: they are freed here, into this thread's cache again).
static inline int cdashport_release_thread_cache(void) {
    enum { sizes = 64, perSize = 7 };
    void **blocks = (void **)calloc(sizes * perSize + 1, sizeof(void *));
    if (blocks == NULL) return 0;
    size_t taken = 0;
    for (size_t size = 0; size < sizes; size++) {
        for (int copy = 0; copy < perSize; copy++) {
            void *block = malloc(24 + 16 * size);  // the largest request of the cache's size class
            if (block != NULL) blocks[taken++] = block;
        }
    }
    pthread_t thread;
    if (pthread_create(&thread, NULL, cdashport_free_blocks, blocks) != 0) {
        cdashport_free_blocks(blocks);
        return 0;
    }
    pthread_join(thread, NULL);
    return 1;
}

/// Names the calling thread (prctl PR_SET_NAME: the kernel keeps 15 bytes; `top -H`, `ps -L` and
/// /proc/PID/task/TID/comm show it). pthread_setname_np is declared only under _GNU_SOURCE.
static inline void cdashport_set_thread_name(const char *name) {
    prctl(PR_SET_NAME, (unsigned long)name, 0UL, 0UL, 0UL);
}

// posix_spawn_file_actions_addclosefrom_np (glibc 2.34) is declared only under _GNU_SOURCE too. A
// child started by posix_spawn (the browser tests' chromium) gets only the descriptors it is given,
// not every socket the test process has open without O_CLOEXEC.
#ifndef __USE_GNU
extern int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *actions, int from);
#endif

/// posix_spawn_file_actions_addclosefrom_np: closes every descriptor >= `from` in the child.
static inline int cdashport_spawn_close_from(posix_spawn_file_actions_t *actions, int from) {
    return posix_spawn_file_actions_addclosefrom_np(actions, from);
}
#endif
