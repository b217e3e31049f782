/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The QEMU primitives nvmimic-rt.c uses, for tests/unit/test-rt.c. */
#ifndef RT_SHIM_H
#define RT_SHIM_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <glib.h>

#define CONFIG_PRCTL_PR_SET_TIMERSLACK 1

/* qemu/atomic.h */
#define qatomic_read(p) __atomic_load_n(p, __ATOMIC_RELAXED)
#define qatomic_set(p, v) __atomic_store_n(p, v, __ATOMIC_RELAXED)
#define qatomic_inc(p) ((void)__atomic_fetch_add(p, 1, __ATOMIC_SEQ_CST))
#define qatomic_fetch_dec(p) __atomic_fetch_sub(p, 1, __ATOMIC_SEQ_CST)
#define smp_mb() __atomic_thread_fence(__ATOMIC_SEQ_CST)

/* qemu/processor.h */
#define cpu_relax() __asm__ volatile("pause" ::: "memory")

/* qemu/main-loop.h: the BQL */
void shim_bql_lock(void);
bool shim_bql_trylock(void);
void shim_bql_unlock(void);
bool shim_bql_locked(void);
#define bql_lock() shim_bql_lock()
#define bql_trylock() shim_bql_trylock()
#define bql_unlock() shim_bql_unlock()
#define bql_locked() shim_bql_locked()

/* qemu/rcu.h */
static inline void rcu_register_thread(void) {}
static inline void rcu_unregister_thread(void) {}

/* qemu/thread.h */
typedef struct QemuThread {
    pthread_t thread;
} QemuThread;
#define QEMU_THREAD_DETACHED 1
void qemu_thread_create(QemuThread *thread, const char *name,
                        void *(*fn)(void *), void *arg, int mode);
int qemu_thread_set_affinity(QemuThread *thread, unsigned long *host_cpus,
                             unsigned long nbits);

/* qemu/bitmap.h */
#define BITS_PER_LONG (sizeof(unsigned long) * 8)
static inline unsigned long *bitmap_new(long nbits)
{
    return g_new0(unsigned long, (nbits + BITS_PER_LONG - 1) / BITS_PER_LONG);
}
static inline void set_bit(long nr, unsigned long *addr)
{
    addr[nr / BITS_PER_LONG] |= 1UL << (nr % BITS_PER_LONG);
}

/* qemu/timer.h: QEMU_CLOCK_VIRTUAL stands still while the VM is stopped */
typedef enum { QEMU_CLOCK_REALTIME, QEMU_CLOCK_VIRTUAL } QEMUClockType;
#define SCALE_US 1000
#define NANOSECONDS_PER_SECOND 1000000000LL
int64_t get_clock(void);
int64_t qemu_clock_get_ns(QEMUClockType type);

/* qapi/error.h, qemu/error-report.h */
typedef struct Error {
    char *msg;
} Error;
#define error_setg(errp, ...) shim_error_set(errp, 0, __VA_ARGS__)
#define error_setg_errno(errp, err, ...) shim_error_set(errp, err, __VA_ARGS__)
void shim_error_set(Error **errp, int err, const char *fmt, ...)
    G_GNUC_PRINTF(3, 4);
#define warn_report(...) (fprintf(stderr, __VA_ARGS__), fputc('\n', stderr))

/* system/runstate.h */
typedef int RunState;
typedef void VMChangeStateHandler(void *opaque, bool running, RunState state);
typedef struct VMChangeStateEntry VMChangeStateEntry;
VMChangeStateEntry *qemu_add_vm_change_state_handler(VMChangeStateHandler *cb,
                                                     void *opaque);
void qemu_del_vm_change_state_handler(VMChangeStateEntry *e);
bool runstate_is_running(void);

/* trace/trace-hw_nvme_nvmimic.h */
static inline void trace_nvmimic_rt_post(int64_t due_ns G_GNUC_UNUSED,
                                         int64_t bql_wait_ns G_GNUC_UNUSED)
{
}

#endif
