package dev.zklock.recipes.test.history;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A set of elements in a directory, written only with a fencing token at least as new as the newest it has taken: the
 * fenced resource of the partition workloads (Jepsen's set guarded by the lock's revision), shared by several JVMs.
 *
 * <p>{@link #add} is atomic across processes: it takes an exclusive {@link FileChannel#lock() file lock} on the
 * directory's {@code lock} file, compares the token with the newest in the file {@code newest}, and either refuses or
 * stores the token (a temporary file renamed over the old one) and then appends the element as one line to
 * {@code elements}. The token is stored before the element, so a process that dies between the two leaves a newer
 * token and no element, which it never acknowledged. An equal token writes: a holder may add several elements under
 * its one token.
 *
 * <p>All state is in the files; the only JVM-local thing is a lock per directory that keeps two threads of one JVM
 * from asking for the same file lock at once (the JDK refuses overlapping file locks within a JVM). A process stopped
 * (SIGSTOP) inside {@link #add} holds the file lock for as long as it is stopped; {@code add} takes microseconds, so a
 * run hits that rarely.
 *
 * <p>Thread-safe, and safe across processes sharing the directory.
 */
public final class FencedStore {
    private static final ConcurrentMap<Path, ReentrantLock> LOCAL_LOCKS = new ConcurrentHashMap<>();

    private final Path dir;
    private final ReentrantLock localLock;

    private FencedStore(Path dir, ReentrantLock localLock) {
        this.dir = dir;
        this.localLock = localLock;
    }

    /**
     * Opens the store in {@code dir}, creating the directory if absent; stores opened on one directory, in any JVM,
     * are one store.
     *
     * @param dir the directory
     * @return the store
     * @throws UncheckedIOException if the directory cannot be created
     */
    public static FencedStore open(Path dir) {
        Objects.requireNonNull(dir, "dir");
        try {
            Path real = Files.createDirectories(dir).toRealPath();
            return new FencedStore(real, LOCAL_LOCKS.computeIfAbsent(real, d -> new ReentrantLock()));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open fenced store " + dir, e);
        }
    }

    /**
     * Adds {@code element} if {@code token} is at least the newest token the store has taken.
     *
     * @param element the element, without commas, tabs or line breaks
     * @param token the writer's fencing token
     * @return {@code true} if stored; {@code false} if refused as late (a newer token was taken before)
     * @throws IllegalArgumentException naming the element if it is empty or holds a comma, tab or line break
     * @throws UncheckedIOException if the files cannot be read or written
     */
    public boolean add(String element, long token) {
        requireElement(element);
        return locked(() -> {
            OptionalLong newest = AtomicFiles.readLong(dir.resolve("newest"));
            if (newest.isPresent() && token < newest.getAsLong()) {
                return false;
            }
            if (newest.isEmpty() || token > newest.getAsLong()) {
                AtomicFiles.writeLong(dir.resolve("newest"), token);
            }
            appendLine(element);
            return true;
        });
    }

    /**
     * Returns the elements in the order they were added, a duplicate as often as it was added.
     *
     * @return the elements
     * @throws UncheckedIOException if the files cannot be read
     */
    public List<String> read() {
        return locked(this::readLines);
    }

    /**
     * Returns the newest token taken.
     *
     * @return the token, or empty if nothing was added
     * @throws UncheckedIOException if the file cannot be read
     */
    public OptionalLong newestToken() {
        return locked(() -> AtomicFiles.readLong(dir.resolve("newest")));
    }

    private void appendLine(String element) throws IOException {
        try (FileChannel out = FileChannel.open(
                dir.resolve("elements"),
                StandardOpenOption.CREATE,
                StandardOpenOption.WRITE,
                StandardOpenOption.APPEND)) {
            ByteBuffer line = ByteBuffer.wrap((element + "\n").getBytes(StandardCharsets.UTF_8));
            while (line.hasRemaining()) {
                out.write(line);
            }
        }
    }

    private List<String> readLines() throws IOException {
        String text;
        try {
            text = Files.readString(dir.resolve("elements"), StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            return List.of();
        }
        List<String> elements = new ArrayList<>();
        int start = 0;
        for (int end = text.indexOf('\n'); end >= 0; end = text.indexOf('\n', start)) {
            elements.add(text.substring(start, end));
            start = end + 1;
        }
        return elements;
    }

    private <T> T locked(IoStep<T> step) {
        localLock.lock();
        try (FileChannel channel =
                FileChannel.open(dir.resolve("lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            FileLock lock = channel.lock();
            try {
                return step.run();
            } finally {
                lock.release();
            }
        } catch (IOException e) {
            throw new UncheckedIOException("fenced store " + dir + ": " + e.getMessage(), e);
        } finally {
            localLock.unlock();
        }
    }

    static void requireElement(String element) {
        Objects.requireNonNull(element, "element");
        if (element.isEmpty() || element.chars().anyMatch(c -> c == ',' || c == '\t' || c == '\n' || c == '\r')) {
            throw new IllegalArgumentException(
                    "element '" + element + "' is empty or holds a comma, tab or line break");
        }
    }

    @FunctionalInterface
    private interface IoStep<T> {
        T run() throws IOException;
    }
}
