package dev.zklock.recipes.test.partition;

import dev.zklock.recipes.test.history.History;
import dev.zklock.recipes.test.history.HistoryEvent;
import dev.zklock.recipes.test.history.HistoryEvent.Type;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** What the partition tests read from the histories the workers and the observer wrote. */
final class Histories {
    private Histories() {}

    /** Returns the lines of {@code file} written so far; none if it is not there yet. */
    static List<String> lines(Path file) throws IOException {
        return Files.exists(file) ? Files.readAllLines(file) : List.of();
    }

    /** Returns how many lines of {@code file} written so far hold {@code text}; 0 if it cannot be read now. */
    static long countQuietly(Path file, String text) {
        try {
            return lines(file).stream().filter(line -> line.contains(text)).count();
        } catch (IOException notYet) {
            return 0;
        }
    }

    /**
     * Returns, per worker process, what breaks the order invoke acquire, then ok (and later invoke release, then ok or
     * info), fail or info, with state lines only between a grant and its release's outcome; and a process still inside
     * or still waiting at the end. Empty when every process kept it.
     */
    static Map<String, String> unpaired(History history) {
        Map<String, String> phase = new LinkedHashMap<>();
        Map<String, String> broken = new LinkedHashMap<>();
        for (HistoryEvent event : history.events()) {
            if (!List.of("acquire", "release", "state").contains(event.f())) {
                continue;
            }
            String before = phase.getOrDefault(event.process(), "idle");
            String after = next(before, event);
            if (after == null) {
                broken.putIfAbsent(event.process(), event.toLine() + " after " + before);
            } else {
                phase.put(event.process(), after);
            }
        }
        phase.forEach((process, last) -> {
            if (!last.equals("idle")) {
                broken.putIfAbsent(process, "ends " + last);
            }
        });
        return broken;
    }

    private static String next(String phase, HistoryEvent event) {
        String step = event.type().spelling() + " " + event.f();
        switch (phase + ": " + step) {
            case "idle: invoke acquire":
                return "acquiring";
            case "acquiring: ok acquire":
                return "inside";
            case "acquiring: fail acquire":
            case "acquiring: info acquire":
            case "releasing: ok release":
            case "releasing: info release":
                return "idle";
            case "inside: invoke release":
            case "releasing: ok state":
                return "releasing";
            case "inside: ok state":
                return "inside";
            default:
                return null;
        }
    }

    /** Returns the tokens of the grants in exclusive or write mode on {@code key}, in the order of the grants. */
    static List<String> exclusiveTokens(History history, String key) {
        List<String> tokens = new ArrayList<>();
        for (HistoryEvent event : history.withF("acquire")) {
            String[] value = event.value().split(" ");
            if (event.key().equals(key)
                    && event.type() == Type.OK
                    && (value[0].equals("exclusive") || value[0].equals("write"))) {
                tokens.add(value[1]);
            }
        }
        return tokens;
    }

    /** Returns the events of type {@code type} and operation {@code f} on {@code key}. */
    static List<HistoryEvent> events(History history, Type type, String f, String key) {
        return history.withF(f).stream()
                .filter(event -> event.type() == type && event.key().equals(key))
                .toList();
    }
}
