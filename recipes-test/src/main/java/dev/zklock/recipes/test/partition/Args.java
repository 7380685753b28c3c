package dev.zklock.recipes.test.partition;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * The {@code --name value} arguments of a main class of the rig, checked against the names it knows. Immutable.
 */
final class Args {
    private final String command;
    private final Map<String, String> values;

    private Args(String command, Map<String, String> values) {
        this.command = command;
        this.values = values;
    }

    /**
     * Parses {@code args} as pairs {@code --name value}.
     *
     * @throws IllegalArgumentException naming the argument if one is not a known {@code --name}, has no value, or is
     *     given twice
     */
    static Args parse(String command, Set<String> known, String... args) {
        Map<String, String> values = new HashMap<>();
        for (int i = 0; i < args.length; i += 2) {
            String name = args[i];
            if (!name.startsWith("--") || !known.contains(name.substring(2))) {
                throw new IllegalArgumentException(command + ": unknown argument '" + name + "', expected one of "
                        + known.stream().sorted().map(k -> "--" + k).toList());
            }
            if (i + 1 == args.length) {
                throw new IllegalArgumentException(command + ": argument '" + name + "' has no value");
            }
            if (values.put(name.substring(2), args[i + 1]) != null) {
                throw new IllegalArgumentException(command + ": argument '" + name + "' is given twice");
            }
        }
        return new Args(command, values);
    }

    /** Returns the value of {@code --name}; IllegalArgumentException if it was not given. */
    String required(String name) {
        String value = values.get(name);
        if (value == null) {
            throw new IllegalArgumentException(command + ": argument '--" + name + "' is required");
        }
        return value;
    }

    /** Returns the value of {@code --name}, or {@code otherwise} if it was not given. */
    String optional(String name, String otherwise) {
        return values.getOrDefault(name, otherwise);
    }

    /** Returns the value of {@code --name} as a long of at least {@code min}; IllegalArgumentException otherwise. */
    long number(String name, String otherwise, long min) {
        String text = otherwise == null ? required(name) : optional(name, otherwise);
        long value;
        try {
            value = Long.parseLong(text);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(
                    command + ": argument '--" + name + "' is '" + text + "', not a number", e);
        }
        if (value < min) {
            throw new IllegalArgumentException(
                    command + ": argument '--" + name + "' is " + value + ", must be at least " + min);
        }
        return value;
    }
}
