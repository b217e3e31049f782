/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Binary min-heap (heap.h).  Items live in one array; index 0 is the top,
 * the children of i are 2i+1 and 2i+2.
 */
#include <glib.h>

#include "heap.h"

static inline bool item_less(const NvmHeapItem *a, const NvmHeapItem *b)
{
    return a->key < b->key || (a->key == b->key && a->tie < b->tie);
}

static void sift_down(NvmHeap *h, size_t i)
{
    NvmHeapItem it = h->v[i];

    for (;;) {
        size_t l = 2 * i + 1, m = l;

        if (l >= h->len) {
            break;
        }
        if (l + 1 < h->len && item_less(&h->v[l + 1], &h->v[l])) {
            m = l + 1;
        }
        if (!item_less(&h->v[m], &it)) {
            break;
        }
        h->v[i] = h->v[m];
        i = m;
    }
    h->v[i] = it;
}

void nvm_heap_init(NvmHeap *h, size_t reserve)
{
    h->len = 0;
    h->cap = reserve ? reserve : 16;
    h->v = g_new(NvmHeapItem, h->cap);
}

void nvm_heap_destroy(NvmHeap *h)
{
    g_free(h->v);
    h->v = NULL;
    h->len = h->cap = 0;
}

void nvm_heap_push(NvmHeap *h, uint64_t key, uint64_t tie, void *data)
{
    NvmHeapItem it = { key, tie, data };
    size_t i = h->len++;

    if (h->len > h->cap) {
        h->cap *= 2;
        h->v = g_renew(NvmHeapItem, h->v, h->cap);
    }
    while (i > 0 && item_less(&it, &h->v[(i - 1) / 2])) {
        h->v[i] = h->v[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h->v[i] = it;
}

void nvm_heap_pop(NvmHeap *h)
{
    if (!h->len) {
        return;
    }
    if (--h->len) {
        h->v[0] = h->v[h->len];
        sift_down(h, 0);
    }
}

void nvm_heap_update_top(NvmHeap *h, uint64_t key)
{
    h->v[0].key = key;
    sift_down(h, 0);
}

void nvm_heap_filter(NvmHeap *h,
                     bool (*keep)(const NvmHeapItem *it, void *opaque),
                     void *opaque)
{
    size_t kept = 0;

    for (size_t i = 0; i < h->len; i++) {
        if (keep(&h->v[i], opaque)) {
            h->v[kept++] = h->v[i];
        }
    }
    h->len = kept;
    for (size_t i = kept / 2; i-- > 0;) {
        sift_down(h, i);
    }
}
