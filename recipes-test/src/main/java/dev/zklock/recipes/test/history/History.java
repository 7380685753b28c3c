package dev.zklock.recipes.test.history;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;

/**
 * A run's events in time order: the input of every checker.
 *
 * <p>{@link #read(Path...)} merges the files of several JVMs by {@code nanos} (one monotonic clock on one machine);
 * events with equal times keep the order of the files as given, then their order within the file.
 *
 * <p>Immutable and thread-safe.
 */
public final class History {
    private final List<HistoryEvent> events;

    private History(List<HistoryEvent> events) {
        this.events = List.copyOf(events);
    }

    /**
     * Returns a history of {@code events}, sorted by time (stable).
     *
     * @param events the events, in any order
     * @return the history
     */
    public static History of(List<HistoryEvent> events) {
        List<HistoryEvent> sorted = new ArrayList<>(events);
        sorted.sort(Comparator.comparingLong(HistoryEvent::nanos));
        return new History(sorted);
    }

    /**
     * Reads and merges history files.
     *
     * @param files the files, one per JVM; ties in time keep this order
     * @return the merged history
     * @throws IllegalArgumentException naming the file and the line number of the first line that does not parse
     * @throws UncheckedIOException if a file cannot be read
     */
    public static History read(Path... files) {
        List<HistoryEvent> all = new ArrayList<>();
        for (Path file : files) {
            try {
                all.addAll(parse(file.toString(), Files.readAllLines(file, StandardCharsets.UTF_8)));
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read history " + file, e);
            }
        }
        return of(all);
    }

    /**
     * Parses the lines of one history; an empty line is an error, as any other line that does not parse.
     *
     * @param name the name of the source, for messages
     * @param lines the lines
     * @return the events, in the order of the lines
     * @throws IllegalArgumentException naming {@code name} and the line number (from 1) of the first bad line
     */
    public static List<HistoryEvent> parse(String name, List<String> lines) {
        List<HistoryEvent> parsed = new ArrayList<>(lines.size());
        for (int i = 0; i < lines.size(); i++) {
            try {
                parsed.add(HistoryEvent.parse(lines.get(i)));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(
                        "history " + name + " line " + (i + 1) + ": " + e.getMessage() + " in '" + lines.get(i) + "'",
                        e);
            }
        }
        return parsed;
    }

    /**
     * Returns the events in time order.
     *
     * @return an unmodifiable list
     */
    public List<HistoryEvent> events() {
        return events;
    }

    /**
     * Returns the time of the last event, or 0 for an empty history.
     *
     * @return the nanos of the last event
     */
    public long end() {
        return events.isEmpty() ? 0 : events.get(events.size() - 1).nanos();
    }

    /**
     * Returns the events with operation {@code f}.
     *
     * @param f the operation
     * @return the events, in time order
     */
    public List<HistoryEvent> withF(String f) {
        Objects.requireNonNull(f, "f");
        return events.stream().filter(e -> e.f().equals(f)).toList();
    }
}
