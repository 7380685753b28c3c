package dev.zklock.recipes.test.history;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;

/**
 * A long in a file, read and written with no lock between the two: the unfenced counter of the partition workloads.
 * A worker reads, adds one and writes inside its critical section; when two workers are inside at once, one update
 * overwrites the other, and {@link CounterChecker} counts the updates lost that way.
 *
 * <p>Each step alone is atomic across processes: {@link #write} writes a temporary file in the same directory and
 * renames it over the counter, so {@link #read} sees a whole value, the old or the new. Nothing makes the pair
 * atomic; that is the point.
 *
 * <p>Thread-safe and safe across processes per step; keeps no state of its own.
 */
public final class FileCounter {
    private final Path file;

    private FileCounter(Path file) {
        this.file = file;
    }

    /**
     * Opens the counter in {@code file}, creating its directory if absent; a missing file reads 0.
     *
     * @param file the counter's file
     * @return the counter
     * @throws UncheckedIOException if the directory cannot be created
     */
    public static FileCounter open(Path file) {
        Objects.requireNonNull(file, "file");
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open counter " + file, e);
        }
        return new FileCounter(file);
    }

    /**
     * Reads the value.
     *
     * @return the value last written, 0 if none
     * @throws IllegalStateException naming the file if it holds no long
     * @throws UncheckedIOException if the file cannot be read
     */
    public long read() {
        try {
            return AtomicFiles.readLong(file).orElse(0);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read counter " + file, e);
        }
    }

    /**
     * Replaces the value in one atomic step.
     *
     * @param value the new value
     * @throws UncheckedIOException if the file cannot be written
     */
    public void write(long value) {
        try {
            AtomicFiles.writeLong(file, value);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write counter " + file, e);
        }
    }
}
