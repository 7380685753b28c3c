package dev.zklock.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads JSON text into maps, lists, strings, doubles, booleans and nulls, so that tests can check what the commands'
 * {@code --json} prints as a script would see it. Strict enough for tests: it fails on anything that is not JSON.
 */
final class JsonReader {
    private final String text;
    private int at;

    private JsonReader(String text) {
        this.text = text;
    }

    /** Returns the one JSON value in {@code text}. */
    static Object read(String text) {
        JsonReader reader = new JsonReader(text.trim());
        Object value = reader.value();
        if (reader.at != reader.text.length()) {
            throw reader.error("text after the value");
        }
        return value;
    }

    /** Returns the JSON object in {@code text}. */
    @SuppressWarnings("unchecked")
    static Map<String, Object> object(String text) {
        return (Map<String, Object>) read(text);
    }

    /** Returns {@code value}, read from JSON, as the list of objects it is. */
    @SuppressWarnings("unchecked")
    static List<Map<String, Object>> objects(Object value) {
        return (List<Map<String, Object>>) value;
    }

    private Object value() {
        skipSpace();
        if (at >= text.length()) {
            throw error("no value");
        }
        char c = text.charAt(at);
        if (c == '{') {
            return object();
        }
        if (c == '[') {
            return array();
        }
        if (c == '"') {
            return string();
        }
        for (String word : List.of("true", "false", "null")) {
            if (text.startsWith(word, at)) {
                at += word.length();
                return word.equals("null") ? null : Boolean.valueOf(word);
            }
        }
        int start = at;
        while (at < text.length() && "+-0123456789.eE".indexOf(text.charAt(at)) >= 0) {
            at++;
        }
        if (start == at) {
            throw error("unexpected '" + c + "'");
        }
        return Double.valueOf(text.substring(start, at));
    }

    private Map<String, Object> object() {
        Map<String, Object> map = new LinkedHashMap<>();
        at++;
        skipSpace();
        if (text.charAt(at) == '}') {
            at++;
            return map;
        }
        while (true) {
            skipSpace();
            String key = string();
            skipSpace();
            expect(':');
            map.put(key, value());
            skipSpace();
            if (text.charAt(at) == '}') {
                at++;
                return map;
            }
            expect(',');
        }
    }

    private List<Object> array() {
        List<Object> list = new ArrayList<>();
        at++;
        skipSpace();
        if (text.charAt(at) == ']') {
            at++;
            return list;
        }
        while (true) {
            list.add(value());
            skipSpace();
            if (text.charAt(at) == ']') {
                at++;
                return list;
            }
            expect(',');
        }
    }

    private String string() {
        expect('"');
        StringBuilder out = new StringBuilder();
        while (true) {
            char c = text.charAt(at++);
            if (c == '"') {
                return out.toString();
            }
            if (c < 0x20) {
                throw error("control character in a string");
            }
            if (c != '\\') {
                out.append(c);
                continue;
            }
            char escaped = text.charAt(at++);
            switch (escaped) {
                case 'n' -> out.append('\n');
                case 'r' -> out.append('\r');
                case 't' -> out.append('\t');
                case 'b' -> out.append('\b');
                case 'f' -> out.append('\f');
                case 'u' -> {
                    out.append((char) Integer.parseInt(text.substring(at, at + 4), 16));
                    at += 4;
                }
                case '"', '\\', '/' -> out.append(escaped);
                default -> throw error("bad escape \\" + escaped);
            }
        }
    }

    private void expect(char c) {
        if (at >= text.length() || text.charAt(at) != c) {
            throw error("expected '" + c + "'");
        }
        at++;
    }

    private void skipSpace() {
        while (at < text.length() && Character.isWhitespace(text.charAt(at))) {
            at++;
        }
    }

    private IllegalArgumentException error(String what) {
        return new IllegalArgumentException("not JSON at " + at + ": " + what + " in: " + text);
    }
}
