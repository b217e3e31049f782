/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * JSON text as results.json lays it out: json-glib's pretty layout (indent
 * 1, "key" : value, "[]" and "{ }" when empty), but numbers in the fewest
 * digits that read back as the same double (json-glib 1.6 prints 17
 * significant digits: 331.99000000000001).  Whole doubles keep a ".0", so
 * a reader still sees which numbers are not counts.
 */
#include <math.h>
#include <string.h>

#include "results.h"

static void indent(GString *s, unsigned depth)
{
    for (unsigned i = 0; i < depth; i++) {
        g_string_append_c(s, ' ');
    }
}

static void put_string(GString *s, const char *v)
{
    g_string_append_c(s, '"');
    for (const unsigned char *c = (const unsigned char *)v; *c; c++) {
        switch (*c) {
        case '"':
            g_string_append(s, "\\\"");
            break;
        case '\\':
            g_string_append(s, "\\\\");
            break;
        case '\b':
            g_string_append(s, "\\b");
            break;
        case '\f':
            g_string_append(s, "\\f");
            break;
        case '\n':
            g_string_append(s, "\\n");
            break;
        case '\r':
            g_string_append(s, "\\r");
            break;
        case '\t':
            g_string_append(s, "\\t");
            break;
        default:
            if (*c < 0x20) {
                g_string_append_printf(s, "\\u%04x", *c);
            } else {
                g_string_append_c(s, (char)*c);
            }
        }
    }
    g_string_append_c(s, '"');
}

static void put_double(GString *s, double v)
{
    char buf[G_ASCII_DTOSTR_BUF_SIZE];
    /* plain decimals where they are exact enough, else an exponent */
    bool plain = fabs(v) < 1e15 && (v == 0 || fabs(v) >= 1e-4);

    if (!isfinite(v)) {
        g_string_append(s, "null");     /* JSON has no NaN or infinity */
        return;
    }
    for (int prec = plain ? 0 : 1; prec <= 17; prec++) {
        char fmt[8];

        g_snprintf(fmt, sizeof(fmt), plain ? "%%.%df" : "%%.%dg", prec);
        g_ascii_formatd(buf, sizeof(buf), fmt, v);
        if (g_ascii_strtod(buf, NULL) == v) {
            break;
        }
    }
    g_string_append(s, buf);
    if (!strpbrk(buf, ".eE")) {
        g_string_append(s, ".0");
    }
}

static void put_node(GString *s, JsonNode *n, unsigned depth);

static void put_object(GString *s, JsonObject *o, unsigned depth)
{
    g_autoptr(GList) names = json_object_get_members(o);

    if (!names) {
        g_string_append(s, "{ }");
        return;
    }
    g_string_append(s, "{\n");
    for (GList *l = names; l; l = l->next) {
        indent(s, depth + 1);
        put_string(s, l->data);
        g_string_append(s, " : ");
        put_node(s, json_object_get_member(o, l->data), depth + 1);
        g_string_append(s, l->next ? ",\n" : "\n");
    }
    indent(s, depth);
    g_string_append_c(s, '}');
}

static void put_array(GString *s, JsonArray *a, unsigned depth)
{
    guint n = json_array_get_length(a);

    if (!n) {
        g_string_append(s, "[]");
        return;
    }
    g_string_append(s, "[\n");
    for (guint i = 0; i < n; i++) {
        indent(s, depth + 1);
        put_node(s, json_array_get_element(a, i), depth + 1);
        g_string_append(s, i + 1 < n ? ",\n" : "\n");
    }
    indent(s, depth);
    g_string_append_c(s, ']');
}

static void put_node(GString *s, JsonNode *n, unsigned depth)
{
    switch (JSON_NODE_TYPE(n)) {
    case JSON_NODE_OBJECT:
        put_object(s, json_node_get_object(n), depth);
        return;
    case JSON_NODE_ARRAY:
        put_array(s, json_node_get_array(n), depth);
        return;
    case JSON_NODE_NULL:
        g_string_append(s, "null");
        return;
    case JSON_NODE_VALUE:
        break;
    }
    switch (json_node_get_value_type(n)) {
    case G_TYPE_INT64:
        g_string_append_printf(s, "%" G_GINT64_FORMAT, json_node_get_int(n));
        break;
    case G_TYPE_DOUBLE:
        put_double(s, json_node_get_double(n));
        break;
    case G_TYPE_BOOLEAN:
        g_string_append(s, json_node_get_boolean(n) ? "true" : "false");
        break;
    case G_TYPE_STRING:
        put_string(s, json_node_get_string(n));
        break;
    default:
        g_string_append(s, "null");
    }
}

char *nvm_json_to_text(JsonNode *node)
{
    GString *s = g_string_new(NULL);

    put_node(s, node, 0);
    return g_string_free(s, FALSE);
}
