/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A binary min-heap of (key, tie, data), smallest key first and, among
 * equal keys, smallest tie: with distinct ties the order is total, so what
 * comes out never depends on how the heap was built.  Plain C + glib: the
 * device (completion deadlines) and the load generators (next submission
 * times) share it.
 */
#ifndef NVMIMIC_HEAP_H
#define NVMIMIC_HEAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct NvmHeapItem {
    uint64_t key;
    uint64_t tie;
    void *data;
} NvmHeapItem;

typedef struct NvmHeap {
    NvmHeapItem *v;
    size_t len;
    size_t cap;
} NvmHeap;

/* An empty heap with room for @reserve items (it grows as needed). */
void nvm_heap_init(NvmHeap *h, size_t reserve);
void nvm_heap_destroy(NvmHeap *h);

void nvm_heap_push(NvmHeap *h, uint64_t key, uint64_t tie, void *data);
/* The smallest item, or NULL when empty; valid until the next change. */
static inline NvmHeapItem *nvm_heap_top(NvmHeap *h)
{
    return h->len ? &h->v[0] : NULL;
}
void nvm_heap_pop(NvmHeap *h);
/* Give the top item a new key no smaller than its old one (its tie and
 * data stay) and restore the order: one sift-down, cheaper than pop+push. */
void nvm_heap_update_top(NvmHeap *h, uint64_t key);
/* Keep only the items for which @keep returns true, in heap order again. */
void nvm_heap_filter(NvmHeap *h,
                     bool (*keep)(const NvmHeapItem *it, void *opaque),
                     void *opaque);

#endif
