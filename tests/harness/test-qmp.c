/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The QMP client (harness/qemu/qmp.c) against a QMP server played here on
 * a unix socket: a command that timed out gets its answer late, and the
 * next command must get its own answer, not that one.  Before commands
 * carried an id, the late answer was taken by the next command, and every
 * later command read the answer of the one before it.
 */
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "guestctl.h"
#include "qmp.h"

typedef struct {
    int lfd;
    GPtrArray *got;             /* the commands received, as sent */
} Server;

static void send_line(NvmLineSock *c, const char *line)
{
    g_assert_true(nvm_line_send(c, line, NULL));
}

/* The "id" of a command line, as text (the client's numbers). */
static char *cmd_id(const char *line)
{
    const char *p = strstr(line, "\"id\": ");

    g_assert_nonnull(p);
    p += strlen("\"id\": ");
    return g_strndup(p, strspn(p, "0123456789"));
}

/*
 * The session: greeting, capabilities answered; "slow" left unanswered
 * until "fast" arrives, then the late answer to "slow", an event and the
 * answer to "fast"; "again" answered at once.
 */
static gpointer serve(gpointer data)
{
    Server *sv = data;
    int fd = accept(sv->lfd, NULL, NULL);
    NvmLineSock *c;
    g_autofree char *slow_id = NULL;

    g_assert_cmpint(fd, >=, 0);
    c = nvm_line_new_fd(fd, NULL, NULL, NULL);
    send_line(c, "{\"QMP\": {\"version\": {}, \"capabilities\": []}}");
    for (;;) {
        char *line = NULL;
        g_autofree char *id = NULL;
        g_autofree char *ans = NULL;

        if (nvm_line_read(c, 10000, &line) != NVM_LINE_OK) {
            break;
        }
        g_ptr_array_add(sv->got, line);
        id = cmd_id(line);
        if (strstr(line, "\"slow\"")) {
            slow_id = g_strdup(id);
            continue;
        }
        if (strstr(line, "\"fast\"")) {
            g_autofree char *late = g_strdup_printf(
                "{\"return\": {\"who\": \"slow\"}, \"id\": %s}", slow_id);

            send_line(c, late);
            send_line(c, "{\"event\": \"RESUME\", \"timestamp\": {}}");
        }
        ans = g_strdup_printf("{\"return\": {\"who\": \"%s\"}, \"id\": %s}",
                              strstr(line, "\"fast\"") ? "fast" :
                              strstr(line, "\"again\"") ? "again" : "caps",
                              id);
        send_line(c, ans);
    }
    nvm_line_close(c);
    return NULL;
}

static const char *who(JsonNode *n)
{
    g_assert_nonnull(n);
    return json_object_get_string_member(json_node_get_object(n), "who");
}

static void test_late_answer_is_not_the_next_commands(void)
{
    g_autofree char *dir = g_dir_make_tmp("nvmimic-qmp-XXXXXX", NULL);
    g_autofree char *path = g_build_filename(dir, "qmp.sock", NULL);
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    Server sv = { .got = g_ptr_array_new_with_free_func(g_free) };
    g_autoptr(GError) err = NULL;
    GThread *t;
    NvmQmp *q;
    JsonNode *n;

    sv.lfd = socket(AF_UNIX, SOCK_STREAM, 0);
    g_assert_cmpint(sv.lfd, >=, 0);
    g_strlcpy(sa.sun_path, path, sizeof(sa.sun_path));
    g_assert_cmpint(bind(sv.lfd, (struct sockaddr *)&sa, sizeof(sa)), ==, 0);
    g_assert_cmpint(listen(sv.lfd, 1), ==, 0);
    t = g_thread_new("qmp-server", serve, &sv);

    q = nvm_qmp_connect(path, 5000, &err);
    g_assert_no_error(err);
    g_assert_nonnull(q);

    /* no answer within 200 ms: a timeout, the answer still to come */
    n = nvm_qmp_exec(q, "slow", NULL, 200, &err);
    g_assert_null(n);
    g_assert_error(err, G_IO_ERROR, G_IO_ERROR_FAILED);
    g_assert_nonnull(strstr(err->message, "no reply in time"));
    g_clear_error(&err);

    n = nvm_qmp_exec(q, "fast", "{\"x\": 1}", 5000, &err);
    g_assert_no_error(err);
    g_assert_cmpstr(who(n), ==, "fast");
    json_node_unref(n);

    n = nvm_qmp_exec(q, "again", NULL, 5000, &err);
    g_assert_no_error(err);
    g_assert_cmpstr(who(n), ==, "again");
    json_node_unref(n);

    nvm_qmp_close(q);
    g_thread_join(t);
    close(sv.lfd);

    /* capabilities, slow, fast, again: each with an id of its own */
    g_assert_cmpuint(sv.got->len, ==, 4);
    for (guint i = 0; i < sv.got->len; i++) {
        g_autofree char *a = cmd_id(sv.got->pdata[i]);

        for (guint j = 0; j < i; j++) {
            g_autofree char *b = cmd_id(sv.got->pdata[j]);

            g_assert_cmpstr(a, !=, b);
        }
    }
    g_assert_nonnull(strstr(sv.got->pdata[2], "\"arguments\": {\"x\": 1}"));
    g_ptr_array_unref(sv.got);
    g_unlink(path);
    g_rmdir(dir);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/qmp/late_answer_is_not_the_next_commands",
                    test_late_answer_is_not_the_next_commands);
    return g_test_run();
}
