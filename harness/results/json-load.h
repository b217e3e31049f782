/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * JSON text that nvmimic reads (results.json, --fault, fio's output, QMP
 * replies) goes through nvm_json_load(), not json-glib alone: json-glib's
 * parser recurses once per nesting level with no limit, so a text of
 * 100,000 '[' overflowed the stack (nvmimic report died on such a
 * results.json).  Nothing nvmimic reads nests more than a few levels.
 */
#ifndef NVM_JSON_LOAD_H
#define NVM_JSON_LOAD_H

#include <stdbool.h>
#include <json-glib/json-glib.h>

#define NVM_JSON_MAX_DEPTH 512

/*
 * Does @text (@len bytes, or up to its NUL if @len < 0) nest arrays and
 * objects at most NVM_JSON_MAX_DEPTH deep, counting outside strings?
 */
static inline bool nvm_json_depth_ok(const char *text, gssize len)
{
    unsigned depth = 0;
    bool str = false, esc = false;

    for (gssize i = 0; len < 0 ? text[i] != '\0' : i < len; i++) {
        char c = text[i];

        if (str) {
            if (esc) {
                esc = false;
            } else if (c == '\\') {
                esc = true;
            } else if (c == '"') {
                str = false;
            }
        } else if (c == '"') {
            str = true;
        } else if (c == '[' || c == '{') {
            if (++depth > NVM_JSON_MAX_DEPTH) {
                return false;
            }
        } else if ((c == ']' || c == '}') && depth) {
            depth--;
        }
    }
    return true;
}

/* json_parser_load_from_data(), refusing too deep a text first */
static inline gboolean nvm_json_load(JsonParser *p, const char *text,
                                     gssize len, GError **errp)
{
    if (!nvm_json_depth_ok(text, len)) {
        g_set_error(errp, JSON_PARSER_ERROR, JSON_PARSER_ERROR_PARSE,
                    "arrays and objects nested deeper than %d levels",
                    NVM_JSON_MAX_DEPTH);
        return FALSE;
    }
    return json_parser_load_from_data(p, text, len, errp);
}

#endif
