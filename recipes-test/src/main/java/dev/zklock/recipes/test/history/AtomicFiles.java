package dev.zklock.recipes.test.history;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.OptionalLong;

/**
 * Reads and replaces a file that holds one long, each step atomic: a reader sees the old content or the new, never a
 * part (the new content goes to a temporary file in the same directory, then moves over the old one in one rename).
 *
 * <p>Stateless and thread-safe; safe across processes as far as each single step goes.
 */
final class AtomicFiles {
    private AtomicFiles() {}

    static OptionalLong readLong(Path file) throws IOException {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8).trim();
        } catch (NoSuchFileException e) {
            return OptionalLong.empty();
        }
        try {
            return OptionalLong.of(Long.parseLong(text));
        } catch (NumberFormatException e) {
            throw new IllegalStateException("file " + file + " holds '" + text + "', not a long", e);
        }
    }

    static void writeLong(Path file, long value) throws IOException {
        Path temp = Files.createTempFile(file.toAbsolutePath().getParent(), file.getFileName() + ".", ".tmp");
        try {
            Files.writeString(temp, Long.toString(value), StandardCharsets.UTF_8);
            Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } finally {
            Files.deleteIfExists(temp);
        }
    }
}
