package dev.zklock.recipes.test.partition;

import java.io.BufferedWriter;
import java.io.Closeable;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The nemesis's history file: one line per event, {@code <nanos>\tnemesis\t<type>\t<f>\t-\t<value>}, flushed at once
 * so that a run that dies keeps what it did. The one place the rig writes history lines. Safe for use by multiple
 * threads.
 */
final class NemesisLog implements Closeable {
    static final String PROCESS = "nemesis";

    private final BufferedWriter writer; // guarded by this

    NemesisLog(Path file) throws IOException {
        this.writer = Files.newBufferedWriter(
                file, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }

    /** Writes one event of {@code type} ({@code invoke}, {@code ok}, {@code fail}) for fault {@code kind}. */
    synchronized void write(String type, NemesisFault kind, String value) throws IOException {
        String clean = value.replace('\t', ' ').replace('\n', ' ');
        writer.write(System.nanoTime() + "\t" + PROCESS + "\t" + type + "\t" + kind.historyName() + "\t-\t" + clean);
        writer.newLine();
        writer.flush();
    }

    @Override
    public synchronized void close() throws IOException {
        writer.close();
    }
}
