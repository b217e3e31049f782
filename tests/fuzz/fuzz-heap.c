/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer target: the binary heap (backends/heap.c) that holds the
 * device's completions until their deadlines, against a plain reference.
 *
 * The input is a program of pushes (keys with many ties, or anywhere in
 * 64 bits), pops, top updates and filters (what Delete SQ and a
 * controller reset do to held completions).  After every step the top
 * must be the reference's smallest (key, tie), and the sizes must agree.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz-common.h"
#include "heap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct Ref {
    NvmHeapItem *v;
    size_t len;
} Ref;

static bool less(const NvmHeapItem *a, const NvmHeapItem *b)
{
    return a->key < b->key || (a->key == b->key && a->tie < b->tie);
}

static size_t ref_min(const Ref *r)
{
    size_t m = 0;

    for (size_t i = 1; i < r->len; i++) {
        if (less(&r->v[i], &r->v[m])) {
            m = i;
        }
    }
    return m;
}

/*
 * The reference's item that the heap holds at its top.  The heap orders by
 * (key, tie) alone, and a top update can give two items the same pair
 * (A at (5, 0) raised to B's (0x55, 0)), so among equal pairs the heap's
 * choice is as right as the reference's first: follow it, or the two would
 * pop different items and a later filter (by data) would keep different
 * sets.  Falls back to the reference's smallest, which the caller has
 * checked against the top.
 */
static size_t ref_top(const Ref *r, const NvmHeap *h)
{
    const NvmHeapItem *top = nvm_heap_top(h);
    size_t m = ref_min(r);

    for (size_t i = 0; top && i < r->len; i++) {
        if (r->v[i].key == r->v[m].key && r->v[i].tie == r->v[m].tie &&
            r->v[i].data == top->data) {
            return i;
        }
    }
    return m;
}

static bool keep_data_bit(const NvmHeapItem *it, void *opaque)
{
    uintptr_t mask = (uintptr_t)opaque;

    return !((uintptr_t)it->data & mask);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    NvmHeap h;
    Ref r = { g_new(NvmHeapItem, size + 1), 0 };
    uint64_t tie = 0;
    size_t i = 0;

    nvm_heap_init(&h, data && size ? data[0] % 4 : 0);
    while (i < size) {
        uint8_t op = data[i++];
        uint64_t v = 0;

        for (unsigned k = 0; k < (op >> 5) && i < size; k++) {
            v = v << 8 | data[i++];
        }
        switch (op & 7) {
        case 0 ... 3: {             /* push; ties come in push order */
            NvmHeapItem it = { v, (op & 8) ? v ^ 0x55 : tie++,
                               (void *)(uintptr_t)(v & 0xff) };

            nvm_heap_push(&h, it.key, it.tie, it.data);
            r.v[r.len++] = it;
            break;
        }
        case 4:
        case 5:
            if (r.len) {
                size_t m = ref_top(&r, &h);

                nvm_heap_pop(&h);
                r.v[m] = r.v[--r.len];
            }
            break;
        case 6:                     /* a later deadline for the top */
            if (r.len) {
                size_t m = ref_top(&r, &h);
                uint64_t key = r.v[m].key + v;

                if (key < r.v[m].key) {
                    key = UINT64_MAX;
                }
                nvm_heap_update_top(&h, key);
                r.v[m].key = key;
            }
            break;
        default: {                  /* drop the items of one "queue" */
            uintptr_t mask = (uintptr_t)1 << (v % 8);
            size_t kept = 0;

            nvm_heap_filter(&h, keep_data_bit, (void *)mask);
            for (size_t j = 0; j < r.len; j++) {
                if (keep_data_bit(&r.v[j], (void *)mask)) {
                    r.v[kept++] = r.v[j];
                }
            }
            r.len = kept;
            break;
        }
        }
        FUZZ_CHECK(h.len == r.len, "heap holds %zu items, reference %zu",
                   h.len, r.len);
        if (r.len) {
            const NvmHeapItem *top = nvm_heap_top(&h);
            const NvmHeapItem *want = &r.v[ref_min(&r)];

            FUZZ_CHECK(top && top->key == want->key && top->tie == want->tie,
                       "top (%" PRIu64 ", %" PRIu64 ") is not the smallest "
                       "(%" PRIu64 ", %" PRIu64 ")", top ? top->key : 0,
                       top ? top->tie : 0, want->key, want->tie);
        } else {
            FUZZ_CHECK(!nvm_heap_top(&h), "empty heap has a top");
        }
    }
    /* Everything left comes out in order. */
    while (r.len) {
        size_t m = ref_top(&r, &h);
        const NvmHeapItem *top = nvm_heap_top(&h);

        FUZZ_CHECK(top && top->key == r.v[m].key && top->tie == r.v[m].tie,
                   "drain order differs");
        nvm_heap_pop(&h);
        r.v[m] = r.v[--r.len];
    }
    FUZZ_CHECK(!nvm_heap_top(&h), "heap not empty after draining");
    nvm_heap_destroy(&h);
    g_free(r.v);
    return 0;
}
