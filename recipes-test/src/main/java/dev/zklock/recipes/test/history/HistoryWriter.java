package dev.zklock.recipes.test.history;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Objects;

/**
 * Appends events to a history file, one flushed line per event, each stamped with {@code System.nanoTime()} when it is
 * written.
 *
 * <p>The stamp is taken under the writer's lock, so the lines of one file are in time order; a caller records an
 * invocation before it calls and an outcome after the call returns, so the recorded interval contains the real one.
 * Every line is flushed to the operating system before {@link #record} returns, so a JVM killed or stopped afterwards
 * loses nothing it recorded.
 *
 * <p>Thread-safe: any number of threads of one JVM may record through one writer. Use one file per JVM.
 */
public final class HistoryWriter implements AutoCloseable {
    private final Path file;
    /** Guarded by {@code this}. */
    private final Writer out;
    /** Guarded by {@code this}. */
    private boolean closed;

    private HistoryWriter(Path file, Writer out) {
        this.file = file;
        this.out = out;
    }

    /**
     * Opens {@code file} for appending, creating it if absent.
     *
     * @param file the history file
     * @return the writer
     * @throws UncheckedIOException if the file cannot be opened
     */
    public static HistoryWriter open(Path file) {
        Objects.requireNonNull(file, "file");
        try {
            Writer out = Files.newBufferedWriter(
                    file, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
            return new HistoryWriter(file, out);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open history " + file, e);
        }
    }

    /**
     * Records one event, stamped now.
     *
     * @param process the actor, e.g. {@code c2.t1}
     * @param type {@code invoke}, {@code ok}, {@code fail} or {@code info}
     * @param f the operation
     * @param key the lock path, or {@code "-"}
     * @param value the value, or {@code "-"}
     * @throws IllegalArgumentException naming the field if a field is empty or holds a TAB or a line break, or if
     *     {@code type} is unknown
     * @throws IllegalStateException naming the file if the writer is closed
     * @throws UncheckedIOException if the line cannot be written
     */
    public void record(String process, String type, String f, String key, String value) {
        HistoryEvent.Type parsedType = HistoryEvent.Type.of(Objects.requireNonNull(type, "type"));
        HistoryEvent.requireField("process", process);
        HistoryEvent.requireField("f", f);
        HistoryEvent.requireField("key", key);
        HistoryEvent.requireField("value", value);
        synchronized (this) {
            if (closed) {
                throw new IllegalStateException("history writer of " + file + " is closed");
            }
            HistoryEvent event = new HistoryEvent(System.nanoTime(), process, parsedType, f, key, value);
            try {
                out.write(event.toLine());
                out.write('\n');
                out.flush();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot write history " + file, e);
            }
        }
    }

    /**
     * Closes the file; later calls to {@link #record} throw. Closing twice does nothing.
     *
     * @throws UncheckedIOException if the file cannot be closed
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            out.close();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot close history " + file, e);
        }
    }
}
