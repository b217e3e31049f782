/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The binary heap the device and the load generators share (backends/
 * heap.h): items come out by key, then by tie, whatever the order they went
 * in; a grown top key sinks to its place; a filter keeps the rest ordered;
 * and the operation names round-trip.
 */
#include "heap.h"
#include "nvmimic-model.h"

static int cmp_item(const void *a, const void *b)
{
    const NvmHeapItem *x = a, *y = b;

    if (x->key != y->key) {
        return x->key < y->key ? -1 : 1;
    }
    return x->tie < y->tie ? -1 : x->tie > y->tie;
}

/* @n items with keys from a small range (many ties) in random order. */
static NvmHeapItem *random_items(GRand *r, unsigned n)
{
    NvmHeapItem *v = g_new(NvmHeapItem, n);

    for (unsigned i = 0; i < n; i++) {
        v[i].key = g_rand_int_range(r, 0, 50);
        v[i].tie = i;
        v[i].data = &v[i];
    }
    for (unsigned i = n - 1; i > 0; i--) {
        unsigned j = g_rand_int_range(r, 0, i + 1);
        NvmHeapItem t = v[i];

        v[i] = v[j];
        v[j] = t;
    }
    return v;
}

static void pops_in_key_then_tie_order_whatever_the_push_order(void)
{
    g_autoptr(GRand) r = g_rand_new_with_seed(7);

    for (unsigned round = 0; round < 20; round++) {
        unsigned n = 1 + round * 37;
        g_autofree NvmHeapItem *v = random_items(r, n);
        NvmHeap h;

        nvm_heap_init(&h, 1);               /* grows as it goes */
        for (unsigned i = 0; i < n; i++) {
            nvm_heap_push(&h, v[i].key, v[i].tie, v[i].data);
        }
        qsort(v, n, sizeof(*v), cmp_item);
        for (unsigned i = 0; i < n; i++) {
            NvmHeapItem *top = nvm_heap_top(&h);

            g_assert_nonnull(top);
            g_assert_cmpuint(top->key, ==, v[i].key);
            g_assert_cmpuint(top->tie, ==, v[i].tie);
            nvm_heap_pop(&h);
        }
        g_assert_null(nvm_heap_top(&h));
        nvm_heap_pop(&h);                   /* empty: nothing happens */
        g_assert_cmpuint(h.len, ==, 0);
        nvm_heap_destroy(&h);
    }
}

/* What the load generators do: take the earliest job, move it later. */
static void updated_top_sinks_to_its_place(void)
{
    NvmHeap h;
    uint64_t last = 0;
    unsigned turns[8] = { 0 };

    nvm_heap_init(&h, 4);
    for (unsigned i = 0; i < 8; i++) {
        nvm_heap_push(&h, 100, i, NULL);    /* all start at once */
    }
    for (unsigned step = 0; step < 800; step++) {
        NvmHeapItem *top = nvm_heap_top(&h);

        /* times never go back; equal times in job order */
        g_assert_cmpuint(top->key, >=, last);
        last = top->key;
        turns[top->tie]++;
        nvm_heap_update_top(&h, top->key + 10 + top->tie);
    }
    /* job i takes 10 + i per turn: job 0 went round most often */
    for (unsigned i = 1; i < 8; i++) {
        g_assert_cmpuint(turns[i - 1], >=, turns[i]);
    }
    g_assert_cmpuint(turns[0], >, turns[7]);
    g_assert_cmpuint(h.len, ==, 8);
    nvm_heap_destroy(&h);
}

static bool keep_even(const NvmHeapItem *it, void *opaque)
{
    (void)opaque;
    return it->tie % 2 == 0;
}

static void filter_keeps_the_rest_in_order(void)
{
    g_autoptr(GRand) r = g_rand_new_with_seed(11);
    g_autofree NvmHeapItem *v = random_items(r, 301);
    NvmHeap h;
    uint64_t last_key = 0, last_tie = 0;
    unsigned n = 0;

    nvm_heap_init(&h, 16);
    for (unsigned i = 0; i < 301; i++) {
        nvm_heap_push(&h, v[i].key, v[i].tie, NULL);
    }
    nvm_heap_filter(&h, keep_even, NULL);
    g_assert_cmpuint(h.len, ==, 151);
    while (nvm_heap_top(&h)) {
        NvmHeapItem *top = nvm_heap_top(&h);

        g_assert_cmpuint(top->tie % 2, ==, 0);
        g_assert_true(top->key > last_key ||
                      (top->key == last_key && top->tie >= last_tie));
        last_key = top->key;
        last_tie = top->tie;
        nvm_heap_pop(&h);
        n++;
    }
    g_assert_cmpuint(n, ==, 151);
    nvm_heap_destroy(&h);
}

static void operation_names_round_trip(void)
{
    static const char *const names[] = {
        "read", "write", "flush", "discard", "write-zeroes",
    };

    g_assert_cmpuint(G_N_ELEMENTS(names), ==, NVM_CLASS_COUNT);
    for (unsigned i = 0; i < NVM_CLASS_COUNT; i++) {
        NvmOp op;

        g_assert_cmpstr(nvm_op_name((NvmOp)i), ==, names[i]);
        g_assert_true(nvm_op_from_name(names[i], &op));
        g_assert_cmpint(op, ==, (int)i);
    }
    g_assert_cmpstr(nvm_op_name((NvmOp)NVM_CLASS_COUNT), ==, "?");
    {
        NvmOp op;

        g_assert_false(nvm_op_from_name("trim", &op));
    }
}

/* A trace's command names: the operation's, "-fua" after a FUA write's or
 * write zeroes'; each name gives back its operation and flags. */
static void command_names_mark_fua_writes_and_round_trip(void)
{
    static const struct {
        NvmOp op;
        uint32_t flags;
        const char *name;
        uint32_t back;          /* the flags the name gives back */
    } cases[] = {
        { NVM_OP_READ, 0, "read", 0 },
        { NVM_OP_READ, NVM_CMD_FUA, "read", 0 },
        { NVM_OP_WRITE, 0, "write", 0 },
        { NVM_OP_WRITE, NVM_CMD_FUA, "write-fua", NVM_CMD_FUA },
        { NVM_OP_FLUSH, 0, "flush", 0 },
        { NVM_OP_DISCARD, 0, "discard", 0 },
        { NVM_OP_WRITE_ZEROES, 0, "write-zeroes", 0 },
        { NVM_OP_WRITE_ZEROES, NVM_CMD_FUA, "write-zeroes-fua",
          NVM_CMD_FUA },
    };
    static const char *const bad[] = {
        "trim", "fua", "read-fua", "flush-fua", "write-", "WRITE-FUA", "",
    };

    for (unsigned i = 0; i < G_N_ELEMENTS(cases); i++) {
        NvmOp op = NVM_OP_FLUSH;
        uint32_t flags = 7;

        g_assert_cmpstr(nvm_cmd_name(cases[i].op, cases[i].flags), ==,
                        cases[i].name);
        g_assert_true(nvm_cmd_from_name(cases[i].name, &op, &flags));
        g_assert_cmpint(op, ==, cases[i].op);
        g_assert_cmpuint(flags, ==, cases[i].back);
    }
    g_assert_cmpstr(nvm_cmd_name((NvmOp)NVM_CLASS_COUNT, NVM_CMD_FUA), ==,
                    "?");
    for (unsigned i = 0; i < G_N_ELEMENTS(bad); i++) {
        NvmOp op;
        uint32_t flags;

        g_assert_false(nvm_cmd_from_name(bad[i], &op, &flags));
    }
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/heap/pops_in_key_then_tie_order_whatever_the_push_order",
                    pops_in_key_then_tie_order_whatever_the_push_order);
    g_test_add_func("/heap/updated_top_sinks_to_its_place",
                    updated_top_sinks_to_its_place);
    g_test_add_func("/heap/filter_keeps_the_rest_in_order",
                    filter_keeps_the_rest_in_order);
    g_test_add_func("/heap/operation_names_round_trip",
                    operation_names_round_trip);
    g_test_add_func("/heap/command_names_mark_fua_writes_and_round_trip",
                    command_names_mark_fua_writes_and_round_trip);
    return g_test_run();
}
