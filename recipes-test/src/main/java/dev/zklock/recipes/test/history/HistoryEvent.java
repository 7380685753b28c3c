package dev.zklock.recipes.test.history;

import java.util.Locale;
import java.util.Objects;

/**
 * One line of a history: at {@code nanos} ({@code System.nanoTime()}, one clock for every JVM of a run), the actor
 * {@code process} saw an operation {@code f} on {@code key} {@linkplain Type invoked or complete}, with {@code value}.
 *
 * <p>The line is {@code <nanos>\t<process>\t<type>\t<f>\t<key>\t<value>}; {@code "-"} stands for a key or value that
 * does not apply. No field holds a TAB, a carriage return or a newline.
 *
 * <p>Immutable and thread-safe.
 *
 * @param nanos the monotonic time of the event
 * @param process the actor, e.g. {@code c2.t1}, {@code nemesis}, {@code observer}
 * @param type what happened to the operation
 * @param f the operation, e.g. {@code acquire}, or a fault kind for the nemesis
 * @param key the lock path, or {@code "-"}
 * @param value the operation's value, or {@code "-"}
 */
public record HistoryEvent(long nanos, String process, Type type, String f, String key, String value) {

    /** The field that marks a key or value that does not apply. */
    public static final String NONE = "-";

    /** The kinds of event, Jepsen's: an invocation and its three outcomes. */
    public enum Type {
        /** The operation starts (for the nemesis: the fault starts). */
        INVOKE,
        /** The operation happened (for the nemesis: the fault healed). */
        OK,
        /** The operation certainly did not happen. */
        FAIL,
        /** The outcome is unknown: the operation may have happened at any time after its invocation. */
        INFO;

        /**
         * Returns the type a line spells as {@code name}.
         *
         * @param name {@code invoke}, {@code ok}, {@code fail} or {@code info}
         * @return the type
         * @throws IllegalArgumentException naming {@code name} if it is none of them
         */
        public static Type of(String name) {
            switch (name) {
                case "invoke":
                    return INVOKE;
                case "ok":
                    return OK;
                case "fail":
                    return FAIL;
                case "info":
                    return INFO;
                default:
                    throw new IllegalArgumentException("event type '" + name + "' is none of invoke, ok, fail, info");
            }
        }

        /**
         * Returns the type as a line spells it.
         *
         * @return the lower-case name
         */
        public String spelling() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /**
     * Creates an event, checking every field.
     *
     * @param nanos the monotonic time of the event
     * @param process the actor, e.g. {@code c2.t1}, {@code nemesis}, {@code observer}
     * @param type what happened to the operation
     * @param f the operation, e.g. {@code acquire}, or a fault kind for the nemesis
     * @param key the lock path, or {@code "-"}
     * @param value the operation's value, or {@code "-"}
     * @throws IllegalArgumentException naming the field if a text field is empty or holds a TAB, CR or newline
     */
    public HistoryEvent {
        Objects.requireNonNull(type, "type");
        requireField("process", process);
        requireField("f", f);
        requireField("key", key);
        requireField("value", value);
    }

    /**
     * Parses one line.
     *
     * @param line the line, without its line terminator
     * @return the event
     * @throws IllegalArgumentException saying what is wrong if the line does not have six fields, a number of
     *     nanoseconds and a known type
     */
    public static HistoryEvent parse(String line) {
        String[] fields = line.split("\t", -1);
        if (fields.length != 6) {
            throw new IllegalArgumentException("expected 6 tab-separated fields, found " + fields.length);
        }
        long nanos;
        try {
            nanos = Long.parseLong(fields[0]);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("nanos '" + fields[0] + "' is not a long", e);
        }
        return new HistoryEvent(nanos, fields[1], Type.of(fields[2]), fields[3], fields[4], fields[5]);
    }

    /**
     * Returns the event as one line, without a line terminator; {@link #parse} reads it back.
     *
     * @return the line
     */
    public String toLine() {
        return nanos + "\t" + process + "\t" + type.spelling() + "\t" + f + "\t" + key + "\t" + value;
    }

    /**
     * Returns whether the key applies.
     *
     * @return {@code false} when the key is {@code "-"}
     */
    public boolean hasKey() {
        return !NONE.equals(key);
    }

    /**
     * Returns the client id of the process: the part before the first dot ({@code c2} for {@code c2.t1}).
     *
     * @return the client id, or the whole process name if it has no dot
     */
    public String clientId() {
        return clientOf(process);
    }

    static String clientOf(String process) {
        int dot = process.indexOf('.');
        return dot < 0 ? process : process.substring(0, dot);
    }

    static void requireField(String name, String field) {
        Objects.requireNonNull(field, name);
        if (field.isEmpty()) {
            throw new IllegalArgumentException("field " + name + " is empty (write '-' for none)");
        }
        for (int i = 0; i < field.length(); i++) {
            char c = field.charAt(i);
            if (c == '\t' || c == '\n' || c == '\r') {
                throw new IllegalArgumentException("field " + name + " '"
                        + field.replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r")
                        + "' holds a tab or a line break");
            }
        }
    }
}
